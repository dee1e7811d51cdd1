"""The QA sweep behind `problems check` and the template tests.

For every template and many seeds it asks what a learner and a grader rely on: finite
answers, statements and solutions that render to well-formed MathML, the exact answer
graded correct (also written in another unit of the same kind), every misconception
graded to its own code, and the same seed giving the same variant. Over the same
variants it tallies the distinguishability report (distinguish.py): how often each slip
can be told from the right answer at all, which the pass/fail checks above cannot see
because they only grade the slips a variant keeps. A template that declares feasibility
checks (problems/engine/feasibility) must pass them in every variant, and the sweep counts
how often its generator had to redraw a candidate that failed them.
"""

from __future__ import annotations

import math
import random
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from problems.engine import registry
from problems.engine.distinguish import DistinguishReport, tally_variant
from problems.engine.feasibility import RedrawTally, counting_redraws
from problems.engine.template import Kind, Part, Template
from problems.engine.units import convert, same_kind
from problems.engine.variants import Variant

_MATH = re.compile(r"<math\b.*?</math>", re.S)

# A few other units per kind, to check that a converted exact answer still grades correct.
_ALTERNATES = {
    "GB": "MB",
    "GiB": "MiB",
    "KB": "B",
    "KiB": "B",
    "MB": "KB",
    "MiB": "KiB",
    "TB": "GB",
    "us": "ns",
    "ms": "us",
    "s": "ms",
    "min": "s",
    "h": "min",
    "d": "h",
    "GB/s": "MB/s",
    "kW": "W",
    "MWh": "kWh",
    "TFLOP/s": "GFLOP/s",
    "tok/s": "tok/min",
}


@dataclass
class CheckReport:
    variants: int = 0
    failures: list[str] = field(default_factory=list)
    distinguish: DistinguishReport = field(default_factory=DistinguishReport)
    redraws: RedrawTally = field(default_factory=RedrawTally)

    @property
    def ok(self) -> bool:
        return not self.failures


def _answer_text(part: Part) -> str:
    if part.kind is Kind.CHOICE:
        return str(part.value)
    if part.kind is Kind.INTEGER:
        return str(int(part.value))
    return repr(float(part.value))


def _check_markup(html: str) -> str | None:
    for block in _MATH.findall(html):
        try:
            ET.fromstring(block)  # noqa: S314 - our own rendered MathML
        except ET.ParseError as err:
            return f"MathML does not parse: {err}"
    return None


def check_variant(variant: Variant, seed: int) -> list[str]:
    slug = variant.template.slug
    where = f"{slug} seed {seed}"
    problems: list[str] = []
    try:
        parts = variant.parts
    except Exception as err:  # a sweep reports every failure instead of stopping
        return [f"{where}: solve raised {err!r}"]
    for name, part in parts.items():
        if part.kind is Kind.NUMERIC and not math.isfinite(float(part.value)):
            problems.append(f"{where}: part {name} is not finite")
            continue
        result = variant.grade(name, _answer_text(part))
        if not result.correct:
            problems.append(f"{where}: exact answer for {name} graded wrong ({result.feedback})")
        for other in part.also_correct:
            if other not in part.choices or not variant.grade(name, other).correct:
                problems.append(f"{where}: {name} also accepts {other!r}, which grades wrong")
        alternate = _ALTERNATES.get(part.unit)
        if part.kind is Kind.NUMERIC and alternate and same_kind(part.unit, alternate):
            other = convert(float(part.value), part.unit, alternate)
            result = variant.grade(name, f"{other!r} {alternate}")
            if not result.correct:
                problems.append(f"{where}: {name} written in {alternate} graded wrong")
    for m in variant.misconceptions:
        text = str(m.value) if isinstance(m.value, str) else repr(m.value)
        result = variant.grade(m.part, text)
        if result.misconception != m.code:
            problems.append(
                f"{where}: misconception {m.code} on {m.part} graded as {result.misconception!r}"
            )
    for label, render in (
        ("statement", variant.statement_html),
        ("solution", variant.solution_html),
    ):
        try:
            error = _check_markup(render())
        except Exception as err:
            error = f"raised {err!r}"
        if error:
            problems.append(f"{where}: {label} {error}")
    problems.extend(_infeasible(variant, where))
    again = variant.template.generate(random.Random(seed))
    if again != variant.params:
        problems.append(f"{where}: the same seed gave different parameters")
    return problems


def _infeasible(variant: Variant, where: str) -> list[str]:
    declared = variant.template.feasibility
    if declared is None:
        return []
    try:
        failed = declared.failures(variant.params)
    except Exception as err:
        return [f"{where}: describing its system raised {err!r}"]
    return [f"{where}: infeasible, {v}" for v in failed]


def check_all(variants: int = 50, slugs: Iterable[str] | None = None) -> CheckReport:
    report = CheckReport()
    chosen = list(slugs) if slugs else registry.slugs()
    for slug in chosen:
        _check_seeds(report, slug, variants, lambda seed, s=slug: Variant.from_seed(s, seed))
    return report


def check_template(template: Template, variants: int = 50) -> CheckReport:
    """The same sweep over a template that is not in the registry (a file an instructor
    wrote, problems/authored), seeds 0..variants-1."""
    report = CheckReport()
    _check_seeds(
        report,
        template.slug,
        variants,
        lambda seed: Variant(template, template.generate(random.Random(seed))),
    )
    return report


def _check_seeds(
    report: CheckReport, slug: str, variants: int, draw: Callable[[int], Variant]
) -> None:
    for seed in range(variants):
        try:
            with counting_redraws() as tally:
                variant = draw(seed)
            report.redraws.merge(tally)
        except Exception as err:
            report.failures.append(f"{slug} seed {seed}: generate raised {err!r}")
            continue
        report.variants += 1
        report.failures.extend(check_variant(variant, seed))
        _tally(report, variant, seed)


def _tally(report: CheckReport, variant: Variant, seed: int) -> None:
    try:
        _ = variant.parts
    except Exception:  # already reported by check_variant as "solve raised"
        return
    try:
        tally_variant(report.distinguish, variant, seed)
    except Exception as err:
        report.failures.append(f"{variant.template.slug} seed {seed}: slips raised {err!r}")
