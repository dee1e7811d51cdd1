"""The streamed CSV's writes: the first one early (the header and a page of rows, so a
browser's download starts before a large table is read), then fewer, larger ones."""

from __future__ import annotations

from frontend.views.csv_download import FIRST_LINES, LINES_PER_CHUNK, _chunks


def test_the_first_write_is_a_page_then_writes_are_larger():
    rows = [["name"]] + [[f"l{i}"] for i in range(FIRST_LINES + LINES_PER_CHUNK + 5)]
    writes = [chunk.decode().splitlines() for chunk in _chunks(rows)]
    assert [len(w) for w in writes] == [FIRST_LINES, LINES_PER_CHUNK, 6]
    assert writes[0][0] == "name" and writes[-1][-1] == f"l{len(rows) - 2}"
    assert FIRST_LINES < LINES_PER_CHUNK


def test_a_short_table_is_one_write():
    assert [c.decode() for c in _chunks([["a"], ["=1+1"]])] == ["a\r\n'=1+1\r\n"]
