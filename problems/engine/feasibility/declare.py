"""How a template declares the checks its variants must pass, and how its generator is
held to them.

A template sets one class attribute:

    feasibility = Feasibility(checks=(COMPUTE, MEMORY), describe=describe_variant)

where `describe(params) -> SystemDescription` says what system a variant's parameters
describe. Template.__init_subclass__ wraps the template's own generate() with
`feasible_generate`: a candidate that fails a declared check is drawn again from the same
rng, so a seed still gives one variant, always the same, and every variant passes. A
generator should still draw within the limits where it can (rescale rather than redraw):
the wrapper is the guarantee, not the design, and `problems check` reports how often it
had to redraw.

The redraw counter is a context variable: `with counting_redraws() as tally:` collects,
per template slug, the variants drawn, the candidates redrawn and which checks failed
them. Outside such a block nothing is counted, so generating stays free of shared state.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from problems.engine.feasibility.checks import CHECKS, Verdict, failures
from problems.engine.feasibility.system import SystemDescription

MAX_DRAWS = 1000  # candidates per variant before a generator is called broken


@dataclass(frozen=True)
class Feasibility:
    """The checks (names from checks.CHECKS) every variant of a template must pass, and
    the function that describes the system a variant's parameters stand for."""

    checks: tuple[str, ...]
    describe: Callable[[Any], SystemDescription]

    def __post_init__(self) -> None:
        unknown = [c for c in self.checks if c not in CHECKS]
        if unknown:
            raise ValueError(f"unknown feasibility checks {unknown}; known: {list(CHECKS)}")

    def failures(self, params: Any) -> list[Verdict]:
        return failures(self.describe(params), self.checks)


@dataclass
class RedrawTally:
    """Per template slug: variants drawn, candidates redrawn, and redraws per check."""

    variants: Counter[str] = field(default_factory=Counter)
    redraws: Counter[str] = field(default_factory=Counter)
    by_check: dict[str, Counter[str]] = field(default_factory=dict)

    def add(self, slug: str, failed: list[Verdict] | None) -> None:
        if failed is None:
            self.variants[slug] += 1
            return
        self.redraws[slug] += 1
        self.by_check.setdefault(slug, Counter()).update(v.check for v in failed)

    def merge(self, other: RedrawTally) -> None:
        self.variants.update(other.variants)
        self.redraws.update(other.redraws)
        for slug, counts in other.by_check.items():
            self.by_check.setdefault(slug, Counter()).update(counts)

    def rows(self) -> list[dict[str, Any]]:
        """One row per template that declares checks, in slug order."""
        return [
            {
                "template": slug,
                "variants": self.variants[slug],
                "redraws": self.redraws[slug],
                "redraws_per_variant": self.redraws[slug] / self.variants[slug],
                "by_check": dict(sorted(self.by_check.get(slug, Counter()).items())),
            }
            for slug in sorted(self.variants)
        ]

    def lines(self) -> list[str]:
        """The redraw report `problems check` prints: per template that declares checks,
        candidates its generator drew and threw away because they failed one, and which
        checks failed them."""
        lines = [
            "Feasibility: redraws = candidates the generator threw away because they failed "
            "a declared check (every variant checked passes them all)."
        ]
        for r in self.rows():
            checks = ", ".join(f"{k} {v}" for k, v in r["by_check"].items()) or "none"
            lines.append(
                f"  {r['template']:<26} {r['redraws']:>6} redraws over {r['variants']} "
                f"variants ({r['redraws_per_variant']:.2f} per variant; {checks})"
            )
        return lines


_TALLY: ContextVar[RedrawTally | None] = ContextVar("feasibility_redraws", default=None)


@contextmanager
def counting_redraws() -> Iterator[RedrawTally]:
    tally = RedrawTally()
    token = _TALLY.set(tally)
    try:
        yield tally
    finally:
        _TALLY.reset(token)


class InfeasibleGenerator(RuntimeError):
    """A generator drew MAX_DRAWS candidates and none passed its declared checks."""


def feasible_generate(generate: Callable[[Any, random.Random], Any]) -> Callable:
    """Wrap a template's generate(): redraw, from the same rng, until the template's
    declared checks pass (templates without a declaration pass straight through)."""

    @functools.wraps(generate)
    def wrapper(self: Any, rng: random.Random) -> Any:
        declared: Feasibility | None = getattr(self, "feasibility", None)
        if declared is None:
            return generate(self, rng)
        tally = _TALLY.get()
        for _ in range(MAX_DRAWS):
            params = generate(self, rng)
            failed = declared.failures(params)
            if tally is not None:
                tally.add(self.slug, failed or None)
            if not failed:
                return params
        raise InfeasibleGenerator(
            f"{self.slug}: no feasible variant in {MAX_DRAWS} draws; last: {failed[0]}"
        )

    wrapper.__feasible_wrapped__ = True  # type: ignore[attr-defined]
    return wrapper
