"""What an author sees before publishing: a few seeds drawn with their answers, and the
misconception check over a sweep, from a document that need not be saved.

Pure: the engine only, no database (the service checks the role and the slug first).
The same check publishing runs (problems.engine.check.check_template) over fewer
variants, so an author sees each of their misconceptions told apart from the answer, or
not, while still typing; publishing then holds the template to PUBLISH_VARIANTS.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from problems.authored.loader import template_from_data
from problems.engine.check import check_template
from problems.engine.distinguish import TEMPLATE
from problems.engine.variants import Variant

PREVIEW_SEEDS = 3
MAX_PREVIEW_SEEDS = 10
PREVIEW_SWEEP = 50  # variants the misconception check runs over in a preview


@dataclass(frozen=True)
class PreviewAnswer:
    part: str
    label: str
    kind: str
    value: str
    unit: str


@dataclass(frozen=True)
class PreviewVariant:
    seed: int
    parameters: dict[str, Any]
    statement_html: str
    solution_html: str
    answers: list[PreviewAnswer]


@dataclass(frozen=True)
class SlipCheck:
    part: str
    misconception: str
    applies: int
    distinguishable: int


@dataclass(frozen=True)
class Preview:
    variants: list[PreviewVariant]
    checked: int
    failures: list[str]
    misconceptions: list[SlipCheck]


def _answer(part) -> str:
    return str(part.value) if isinstance(part.value, str) else f"{part.value:.6g}"


def preview(data: Any, seeds: list[int]) -> Preview:
    """The seeds' variants and the check; the document must already be valid."""
    template = template_from_data(data)
    variants = []
    for seed in seeds:
        v = Variant(template, template.generate(random.Random(seed)))
        variants.append(
            PreviewVariant(
                seed=seed,
                parameters=v.params.model_dump(mode="json"),
                statement_html=v.statement_html(),
                solution_html=v.solution_html(),
                answers=[
                    PreviewAnswer(name, p.label, str(p.kind), _answer(p), p.unit)
                    for name, p in v.parts.items()
                ],
            )
        )
    report = check_template(template, PREVIEW_SWEEP)
    slips = [
        SlipCheck(row.part, row.misconception, row.applies, row.distinguishable)
        for row in report.distinguish.sorted_rows()
        if row.source == TEMPLATE
    ]
    return Preview(variants, report.variants, report.failures[:10], slips)
