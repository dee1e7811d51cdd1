"""Learner Markdown on hostile text: wall time and call count per entry point (a benchmark,
not a test; tests/capstone/memo_review/test_markdown_growth.py bounds the call counts).

For each hostile pattern of tests/growth.py at 1,000, 10,000 and 60,000 characters
(60,000 is the memo's limit), each entry point that reads learner text runs once after
a warm-up:

- memo_html: the memo's HTML, made once at submission (the pages show the stored HTML);
- preview: the writing page's preview (the HTML and the parser's summary);
- review: the automatic review of one version (`review_memo`, which parses the memo);
- answer: the answer reader (it refuses text past 256 characters before reading).

A case is stopped after --cap seconds (SIGALRM) and reported as over the cap; the larger
sizes of that pattern are then skipped. Then each entry point on an honest memo (the
example memo of the brief), for scale. Run alone: `make bench-markdown`.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from capstone.memo_review import brief_for, example_memo, review_memo  # noqa: E402
from capstone.memo_review.memo_markdown import memo_html  # noqa: E402
from capstone.pages import memo_preview  # noqa: E402
from problems.engine.reader import read_answer  # noqa: E402
from tests.growth import PATTERNS, OverBudget, adversarial, calls  # noqa: E402

SIZES = (1_000, 10_000, 60_000)
BRIEF = brief_for(7)
TARGETS = {
    "memo_html": memo_html,
    "preview": memo_preview,
    "review": lambda text: review_memo(BRIEF, text),
    "answer": read_answer,
}


class OverCap(Exception):
    pass


def _alarm(signum, frame):
    raise OverCap


def timed(fn, text: str, cap: float) -> float | None:
    """Seconds for one call (best of three when a call is under 2 s), None past the cap."""
    signal.signal(signal.SIGALRM, _alarm)
    best = None
    for _ in range(3):
        signal.setitimer(signal.ITIMER_REAL, cap)
        try:
            start = time.perf_counter()
            fn(text)
            elapsed = time.perf_counter() - start
        except OverCap:
            return None
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        best = elapsed if best is None else min(best, elapsed)
        if best > 2.0:
            break
    return best


def counted(fn, text: str, budget: int) -> int | None:
    try:
        return calls(lambda: fn(text), budget=budget)
    except OverBudget:
        return None


def _call_ratios(fn, pattern: str) -> str:
    """Calls at 10k and 60k over calls at 1k, stopped at ten times linear growth."""
    base = calls(lambda: fn(adversarial(pattern, SIZES[0])))
    cells = []
    for size in SIZES[1:]:
        limit = 10 * size // SIZES[0]
        count = counted(fn, adversarial(pattern, size), budget=base * limit)
        cells.append(f"{count / base:,.1f}" if count is not None else f"> {limit:,}")
    return " " + " | ".join(cells) + " |"


def _ms(seconds: float | None, cap: float) -> str:
    if seconds is None:
        return f"> {cap:.0f} s"
    if seconds < 0.001:
        return f"{seconds * 1e6:,.0f} µs"
    return f"{seconds * 1000:,.1f} ms" if seconds < 1 else f"{seconds:,.2f} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cap", type=float, default=20.0, help="seconds per case")
    parser.add_argument("--targets", nargs="*", default=list(TARGETS), choices=list(TARGETS))
    parser.add_argument("--patterns", nargs="*", default=list(PATTERNS), choices=list(PATTERNS))
    parser.add_argument("--calls", action="store_true", help="also count calls (slower)")
    args = parser.parse_args(argv)

    honest = example_memo(BRIEF)
    for fn in TARGETS.values():  # warm-up: imports, compiled patterns, rules, the unit registry
        fn(honest)
    header = "| entry point | pattern | " + " | ".join(f"{n:,} chars" for n in SIZES)
    header += " | calls 10k / 1k | calls 60k / 1k |" if args.calls else " |"
    print(header)
    print("|---|---|" + "---:|" * (len(SIZES) + (2 if args.calls else 0)))
    for target in args.targets:
        fn = TARGETS[target]
        for pattern in args.patterns:
            cells, over = [], False
            for size in SIZES:
                seconds = None if over else timed(fn, adversarial(pattern, size), args.cap)
                cells.append("skipped" if over else _ms(seconds, args.cap))
                over = over or seconds is None
            row = f"| {target} | {pattern} | " + " | ".join(cells) + " |"
            if args.calls:
                row += _call_ratios(fn, pattern)
            print(row, flush=True)
    print(f"\n| entry point | the example memo ({len(honest):,} chars) |\n|---|---:|")
    for target in args.targets:
        print(f"| {target} | {_ms(timed(TARGETS[target], honest, args.cap), args.cap)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
