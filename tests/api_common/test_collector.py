"""api_common.collector.collector_paused: the collector is off inside the block and as it
was after it, errors included; and the progress CSV reads each chunk with it off, never
across a `yield` (what the client reads runs with the collector as it was)."""

from __future__ import annotations

import gc

import pytest

from api_common.collector import collector_paused
from frontend.queries import progress


@pytest.fixture
def collector_on():
    gc.enable()
    yield
    gc.enable()


def test_the_collector_is_off_inside_and_back_on_after(collector_on):
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(ValueError), collector_paused():
        raise ValueError
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off(collector_on):
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()


def test_the_csv_reads_a_chunk_with_the_collector_off_and_yields_with_it_on(
    collector_on, monkeypatch
):
    seen = []

    def chunk_rows(chunk, shapes, skills):
        seen.append(gc.isenabled())
        return [(str(pk),) for pk in chunk]

    monkeypatch.setattr(progress, "_chunk_rows", chunk_rows)
    monkeypatch.setattr(progress, "_layout", lambda **_: (None, [], [], set()))
    monkeypatch.setattr(progress, "_learners", lambda **_: _Ids(range(7)))
    monkeypatch.setattr(progress, "CSV_FIRST_CHUNK", 3)
    _, rows = progress.progress_csv(user=None, slug="x")
    out = []
    for row in rows:
        out.append((row, gc.isenabled()))
    assert seen == [False, False]  # two chunks, each read with the collector off
    assert [r for r, _ in out][1:] == [(str(i),) for i in range(7)]
    assert all(on for _, on in out)  # every row reaches the client with it on


class _Ids(list):
    def values_list(self, *_, **__):
        return self
