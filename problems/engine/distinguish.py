"""Distinguishability: can the grader tell each named slip from the right answer?

A misconception is only worth naming if, when a learner makes that slip, the grader both
marks the answer wrong and says which slip it was. Variant.misconceptions quietly drops a
slip whose value a correct answer would also match, so the check sweep, which grades only
the kept ones, cannot see a generator that makes a slip invisible in half its variants
(checkpoint-daly's Young interval when δ ≪ M; nccl-busbw's algbw for busbw at large n).
This report counts, per template, part and misconception over the variants checked:

- applies: the variants where the slip changes the answer at all (its value differs from
  the right one by more than a relative 1e-9 and by more than the part's absolute floor,
  or is another word for a choice part): a slip inside the floor (a vanishing chance
  given as a fraction, 2e-26 for 2e-24 %) changes nothing a learner could type;
- distinguishable: of those, the variants where the slip's value, typed as a learner
  would (4 significant figures, a whole number for a whole value, the word for a choice),
  grades not correct and is named as that misconception.

Two sources of slips are measured. The template's own (Template.misconceptions, before
any filtering) and the generic factors the grader's known-factor detector claims to
recognise (grading._factors: GB/GiB, bits/bytes, unit prefixes, time units, bytes per
parameter, the all-reduce volume factor, per-GPU versus total), each tried in both
directions on every numeric part. A generic code is left out on a part where the template
declares that code itself (the template has said what the slip's value is), and a generic
slip named by one of the template's own codes for the part counts as told apart: the
learner then gets the template's more specific diagnosis of the same value. Integer parts
get no generic slips: they are floors and ceilings of a quantity the part does not expose,
so the value a factor slip would give there is not knowable; templates name their own.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from problems.engine.grading import _dimensionless, _factors, normalise_choice
from problems.engine.template import FactorHints, Kind, Part
from problems.engine.tolerance import RelAbs
from problems.engine.variants import Variant

LEARNER_FIGURES = 4  # significant figures a learner types from a calculator
APPLIES_REL = 1e-9  # "changes the answer at all"
EXAMPLES_KEPT = 3  # failing seeds kept per row, to reproduce with `generate --seed`

TEMPLATE, GENERIC = "template", "generic"


@dataclass
class SlipRow:
    """The tally for one (template, part, misconception, source)."""

    template: str
    part: str
    misconception: str
    source: str
    applies: int = 0
    distinguishable: int = 0
    named_by_template: int = 0  # generic slips told apart under a template's own code
    examples: list[dict[str, Any]] = field(default_factory=list)

    @property
    def share(self) -> float | None:
        return self.distinguishable / self.applies if self.applies else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "template": self.template,
            "part": self.part,
            "misconception": self.misconception,
            "source": self.source,
            "applies": self.applies,
            "distinguishable": self.distinguishable,
            "share": self.share,
            "named_by_template": self.named_by_template,
            "examples": self.examples,
        }


@dataclass
class DistinguishReport:
    """Rows keyed by (template, part, misconception, source), filled one variant at a time."""

    rows: dict[tuple[str, str, str, str], SlipRow] = field(default_factory=dict)

    def row(self, template: str, part: str, code: str, source: str) -> SlipRow:
        key = (template, part, code, source)
        if key not in self.rows:
            self.rows[key] = SlipRow(template, part, code, source)
        return self.rows[key]

    def sorted_rows(self) -> list[SlipRow]:
        """By template, then worst share first (never-applying slips last)."""
        return sorted(self.rows.values(), key=lambda r: (r.template, _share_key(r), r.part))

    def worst(self, n: int | None = None, min_applies: int = 1) -> list[SlipRow]:
        """The lowest shares over all templates, among rows applying at least min_applies."""
        rows = [r for r in self.rows.values() if r.applies >= max(1, min_applies)]
        rows.sort(key=lambda r: (_share_key(r), -r.applies, r.template, r.part))
        return rows if n is None else rows[:n]

    def below(self, threshold: float, min_applies: int) -> list[SlipRow]:
        """Rows that apply often enough to judge and fall under the threshold share."""
        return [r for r in self.worst(None, min_applies) if (r.share or 0.0) < threshold]


def _share_key(row: SlipRow) -> float:
    return 2.0 if row.share is None else row.share


def typed(part: Part, value: float | int | str) -> str:
    """The slip's value as a learner types it into the part's box (in the part's unit)."""
    if isinstance(value, str):
        return value
    v = float(value)
    if v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return f"{v:.{LEARNER_FIGURES}g}"


def _applies(part: Part, value: float | int | str) -> bool:
    correct = part.value
    if isinstance(value, str) or isinstance(correct, str):
        right = {normalise_choice(str(c)) for c in (correct, *part.also_correct)}
        return normalise_choice(str(value)) not in right
    v, c = float(value), float(correct)
    if math.isclose(v, c, rel_tol=APPLIES_REL, abs_tol=0.0):
        return False
    floor = part.tolerance.abs if isinstance(part.tolerance, RelAbs) else 0.0
    return abs(v - c) > floor


def generic_slips(part: Part, hints: FactorHints) -> dict[str, list[float]]:
    """{code: values} a learner's answer takes when off by one of the detector's factors."""
    if part.kind is not Kind.NUMERIC:
        return {}
    correct = float(part.value)
    percentish = _dimensionless(part.unit)
    out: dict[str, list[float]] = {}
    for code, f, _feedback in _factors(hints):
        if f == 1.0 or (code == "fraction-vs-percent" and not percentish):
            continue
        out.setdefault(code, []).extend((correct * f, correct / f))
    return out


def _judge(
    row: SlipRow,
    variant: Variant,
    part: Part,
    values: Iterable[float | int | str],
    accepted: set[str],
    seed: int,
) -> None:
    """Count one variant for one slip: every applying value must be told apart."""
    applying = [v for v in values if _applies(part, v)]
    if not applying:
        return
    row.applies += 1
    renamed = False
    for value in applying:
        text = typed(part, value)
        result = variant.grade(part.name, text)
        if result.correct or result.misconception not in accepted:
            if len(row.examples) < EXAMPLES_KEPT:
                graded = "correct" if result.correct else result.misconception
                row.examples.append({"seed": seed, "typed": text, "graded_as": graded})
            return
        renamed = renamed or result.misconception != row.misconception
    row.distinguishable += 1
    row.named_by_template += renamed


def tally_variant(report: DistinguishReport, variant: Variant, seed: int) -> None:
    """Add one generated variant's slips to the report (the caller has checked it solves)."""
    template = variant.template
    parts = variant.parts
    own: dict[tuple[str, str], list[float | int | str]] = {}
    for m in template.misconceptions(variant.params):
        if m.part in parts:
            own.setdefault((m.part, m.code), []).append(m.value)
    own_codes: dict[str, set[str]] = {}
    for part_name, code in own:
        own_codes.setdefault(part_name, set()).add(code)

    for (part_name, code), values in own.items():
        row = report.row(template.slug, part_name, code, TEMPLATE)
        _judge(row, variant, parts[part_name], values, {code}, seed)

    hints = template.factor_hints(variant.params)
    for name, part in parts.items():
        declared = own_codes.get(name, set())
        for code, values in generic_slips(part, hints).items():
            if code in declared:
                continue
            row = report.row(template.slug, name, code, GENERIC)
            _judge(row, variant, part, values, {code} | declared, seed)


# ------------------------------------------------------------------------------ output


def _pct(share: float | None) -> str:
    return "—" if share is None else f"{100 * share:.1f}%"


def format_table(rows: Iterable[SlipRow]) -> list[str]:
    """A fixed-width table, one line per row, for `problems check`."""
    rows = list(rows)
    header = ("template", "part", "misconception", "source", "applies", "disting.", "share")
    body = [
        (
            r.template,
            r.part,
            r.misconception,
            r.source,
            str(r.applies),
            str(r.distinguishable),
            _pct(r.share),
        )
        for r in rows
    ]
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
    numeric = {4, 5, 6}

    def fmt(line: tuple[str, ...]) -> str:
        cells = [
            cell.rjust(w) if i in numeric else cell.ljust(w)
            for i, (cell, w) in enumerate(zip(line, widths, strict=True))
        ]
        return "  ".join(cells).rstrip()

    return [fmt(header), *(fmt(line) for line in body)]
