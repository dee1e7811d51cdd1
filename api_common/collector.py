"""The cyclic garbage collector held off while a block builds many short-lived objects.

Rows read in bulk are tuples, which the collector tracks: reading a chunk of the course
progress CSV (500 learners: 4,400 skill rows, 3,000 answered templates, their names)
set off its passes over objects that reference counting frees anyway, since none of
them is in a cycle. Those passes were 60-80 ms of the CSV's 290-330 at 5,743 learners
(bench/README.md, issue 43). The pause covers a block that returns, never a `yield`, so
nothing outside the block runs with the collector off.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the block with the collector off, then restore it as it was (off stays off),
    the block's exceptions included."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
