"""How work grows with a hostile input's size, by a measure the machine's load cannot move.

`calls(fn)` counts the profiler events (Python and C function calls and returns) that one
call of `fn` makes. The count is the same on a quiet machine and a busy one, so a test can
bound its growth where a timed test would flake: a parser that is linear in its input
makes about sixty times the calls on 60,000 characters as on 1,000; a quadratic one makes
thousands of times more. A budget stops the count as soon as it is passed, so a quadratic
parser fails the test in seconds instead of hanging it.

What the count cannot see is work inside one C call: a regular expression that
backtracks is one call however long it runs. The memo's own regular expressions therefore
see only size-bounded text (capstone/memo_review/memo.py), and the tests hold that bound.

`adversarial(pattern, n)` is the text of n characters for each hostile pattern: runs of
link and image openers, emphasis runs, nesting, backtick runs of growing length,
HTML-like text, link reference definitions, tables of many pipes, and key-figure lines
built to make a backtracking regular expression work.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable


class OverBudget(Exception):
    """More calls than the budget allowed: the work grew faster than the budget."""


def calls(fn: Callable[[], object], *, budget: int | None = None) -> int:
    """Profiler events made by `fn()`; OverBudget as soon as they pass `budget`."""
    count = 0

    def hook(frame, event, arg):
        nonlocal count
        count += 1
        if budget is not None and count > budget:
            raise OverBudget(f"over {budget:,} calls")

    previous = sys.getprofile()
    sys.setprofile(hook)
    try:
        fn()
    finally:
        sys.setprofile(previous)
    return count


def _repeat(unit: str, n: int) -> str:
    return (unit * (n // len(unit) + 1))[:n]


def _lines(make_line: Callable[[int], str], n: int) -> str:
    out, size = [], 0
    for i in itertools.count():
        line = make_line(i)
        out.append(line)
        size += len(line)
        if size >= n:
            return "".join(out)[:n]
    raise AssertionError("unreachable")


def _backtick_runs(n: int) -> str:
    """`a``a```a...: code-span openers of every length, none closed (the classic
    quadratic case for a parser that looks ahead for a matching run each time)."""
    return _lines(lambda i: "`" * (i + 1) + "a", n)


def _table(n: int) -> str:
    cols = max(n // 8, 1)
    return _repeat("|a" * cols + "|\n" + "|-" * cols + "|\n" + ("|x" * cols + "|\n") * 4, n)


def _figure_line(value_unit: str) -> Callable[[int], str]:
    """A Key figures section whose one value is a long hostile run."""

    def make(n: int) -> str:
        head = "## Key figures\n\n- Replicas: a"
        return head + _repeat(value_unit, n - len(head) - 1) + "a"

    return make


def _figure_label(n: int) -> str:
    head, tail = "## Key figures\n\n- ", ": 3"
    return head + _repeat("(", n - len(head) - len(tail)) + tail


PATTERNS: dict[str, Callable[[int], str]] = {
    "brackets": lambda n: _repeat("[", n),
    "brackets-lines": lambda n: _repeat("[\n", n),
    "link-openers": lambda n: _repeat("[a](", n),
    "link-closers": lambda n: _repeat("](", n),
    "image-openers": lambda n: _repeat("![", n),
    "emphasis": lambda n: _repeat("*_", n),
    "emphasis-words": lambda n: _repeat("*a **b _c __d ", n),
    "backtick-runs": _backtick_runs,
    "html-like": lambda n: _repeat("<a <b ", n),
    "nested-list-markers": lambda n: _repeat("- ", n),
    "nested-list-indents": lambda n: _lines(lambda i: "  " * (i % 200) + "- x\n", n),
    "nested-quotes": lambda n: _repeat("> ", n),
    "reference-definitions": lambda n: _lines(
        lambda i: f"[r{i}]: https://e.example/{i}\n[r{i}] [r{i // 2}][] ", n
    ),
    "table-pipes": _table,
    "figure-emphasis": _figure_line("*"),
    "figure-notes": _figure_line("(["),
    "figure-label": _figure_label,
}
# Key figures built to make a backtracking regular expression work (one C call each).
FIGURE_PATTERNS = ("figure-emphasis", "figure-notes", "figure-label")


def adversarial(pattern: str, n: int) -> str:
    text = PATTERNS[pattern](n)
    assert len(text) == n, (pattern, n, len(text))
    return text
