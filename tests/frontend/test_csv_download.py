"""The streamed CSV's writes: the first one early (the header and a page of rows, so a
browser's download starts before a large table is read), then fewer, larger ones; and
every cell safe for spreadsheets."""

from __future__ import annotations

import csv

from hypothesis import given
from hypothesis import strategies as st

from frontend.views import csv_download
from frontend.views.csv_download import FIRST_LINES, LINES_PER_CHUNK, _chunks, _Line, safe_cell


def test_the_first_write_is_a_page_then_writes_are_larger():
    rows = [["name"]] + [[f"l{i}"] for i in range(FIRST_LINES + LINES_PER_CHUNK + 5)]
    writes = [chunk.decode().splitlines() for chunk in _chunks(rows)]
    assert [len(w) for w in writes] == [FIRST_LINES, LINES_PER_CHUNK, 6]
    assert writes[0][0] == "name" and writes[-1][-1] == f"l{len(rows) - 2}"
    assert FIRST_LINES < LINES_PER_CHUNK


def test_a_short_table_is_one_write():
    assert [c.decode() for c in _chunks([["a"], ["=1+1"]])] == ["a\r\n'=1+1\r\n"]


CELLS = st.one_of(
    st.none(),
    st.integers(-5, 5),
    st.floats(-2, 2, allow_nan=False),
    st.booleans(),
    st.text(
        alphabet=st.sampled_from(["=", "+", "-", "@", "\t", "\r", "\n", ",", '"', "'", "a", " "])
    ),
    st.text(max_size=6),
)


@given(st.lists(st.lists(CELLS, max_size=6), min_size=1, max_size=5))
def test_every_line_is_what_writing_each_cell_safe_would_give(rows):
    """The one search of a written line lets through exactly the lines safe_cell would
    leave as they are: the output is, byte for byte, every cell through safe_cell."""
    writer = csv.writer(_Line())
    expected = "".join(writer.writerow([safe_cell(c) for c in row]) for row in rows)
    assert b"".join(_chunks(rows)).decode() == expected


def test_a_formula_after_a_quoted_cell_or_inside_one_is_quoted():
    rows = [["a,b", "=1"], ['"x"', "-2"], ["\tx"], ["ok", "1.5"], ["x,=y"]]
    lines = b"".join(_chunks(rows)).decode().split("\r\n")
    assert lines[:5] == ['"a,b",\'=1', '"""x""",\'-2', "'\tx", "ok,1.5", '"x,=y"']


def test_lines_of_plain_cells_are_written_once(monkeypatch):
    """Empty cells, the last one included, and numbers are no formula's start: the
    line is written once, never cell by cell."""
    calls = []
    monkeypatch.setattr(csv_download, "safe_cell", lambda v: calls.append(v) or str(v))
    rows = [["", "scale-learner-1", "a@b.invalid", "0.500", ""], ["x", "", ""]]
    assert b"".join(_chunks(rows)).decode() == ",scale-learner-1,a@b.invalid,0.500,\r\nx,,\r\n"
    assert calls == []
