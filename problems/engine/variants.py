"""One entry point per question to the engine: by slug, from a seed or from parameters.

The CLI, the check sweep, the services and the tests all come through here, so a slug,
its parameters and a learner's text are validated one way everywhere.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from pydantic import ValidationError

from problems.engine import registry
from problems.engine.grading import DEFAULT_SLIP_REL, GradeResult, grade_part
from problems.engine.render import render_markdown
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import RelAbs


class ParamError(ValueError):
    """A bad slug, a missing or extra parameter, or a value out of range: one clear line."""


def _describe(slug: str, err: ValidationError) -> str:
    first = err.errors()[0]
    name = ".".join(str(x) for x in first["loc"]) or "params"
    if first["type"] == "missing":
        return f"{slug}: missing parameter '{name}'"
    if first["type"] == "extra_forbidden":
        return f"{slug}: unknown parameter '{name}'"
    return f"{slug}: parameter '{name}': {first['msg']} (got {first.get('input')!r})"


def template_for(slug: str, version: int | None = None) -> Template:
    try:
        return registry.get(slug, version)
    except KeyError:
        raise ParamError(f"unknown template slug {slug!r}") from None


def parse_params(template: Template, data: Any) -> Params:
    if not isinstance(data, dict):
        raise ParamError(f"{template.slug}: parameters must be a JSON object")
    try:
        return template.parse_params(data)
    except ValidationError as err:
        raise ParamError(_describe(template.slug, err)) from None


def _indistinct(
    part: Part, a: float | int | str, b: float | int | str, *, slips: bool = False
) -> bool:
    """Whether an answer of `a` would also be read as `b` under the part's tolerance.

    Two slips (`slips=True`) are compared without the tolerance's absolute floor, as the
    grader's detector compares them: the floor resolves the right answer (0 for a
    vanishing chance), and 0.001% and 0% are still two different mistakes."""
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    tol = part.tolerance
    if slips and isinstance(tol, RelAbs) and tol.abs > 0:
        rel = tol.rel or DEFAULT_SLIP_REL
        return abs(float(a) - float(b)) <= rel * max(abs(float(a)), abs(float(b)))
    if part.tolerance.score(float(a), float(b)) > 0 or part.tolerance.score(float(b), float(a)) > 0:
        return True
    # Integer parts: the detector allows a slip to be off by one (floor against ceil).
    return part.kind is Kind.INTEGER and abs(float(a) - float(b)) < 1


@dataclass(frozen=True)
class Variant:
    """A template with concrete parameters; everything else is derived from these two."""

    template: Template
    params: Params

    @classmethod
    def from_seed(cls, slug: str, seed: int) -> Variant:
        template = template_for(slug)
        return cls(template, template.generate(random.Random(seed)))

    @classmethod
    def from_params(cls, slug: str, data: Any, version: int | None = None) -> Variant:
        """`version`: the stored question's template_version, so an authored template
        edited since rebuilds as the learner saw it (registry.get)."""
        template = template_for(slug, version)
        return cls(template, parse_params(template, data))

    @cached_property
    def parts(self) -> dict[str, Part]:
        parts = self.template.solve(self.params)
        for part in parts.values():
            if isinstance(part.value, float) and not math.isfinite(part.value):
                raise ParamError(f"{self.template.slug}: these parameters give no finite answer")
        return parts

    @cached_property
    def misconceptions(self) -> list[Misconception]:
        """The misconceptions a grader can tell apart for this variant.

        A slip whose value a correct answer would also match is dropped, and so is one that
        lands on an earlier slip of the same part (with 8 GPUs, ZeRO-3's 16/8 bytes per
        parameter is also "weights only"): the first named cause wins, consistently.
        """
        kept: list[Misconception] = []
        for m in self.template.misconceptions(self.params):
            part = self.parts.get(m.part)
            if part is None:
                continue
            earlier = [k.value for k in kept if k.part == m.part]
            if _indistinct(part, m.value, part.value):
                continue
            if not any(_indistinct(part, m.value, value, slips=True) for value in earlier):
                kept.append(m)
        return kept

    def statement_markdown(self) -> str:
        return self.template.statement(self.params)

    def render_html(self, markdown: str) -> str:
        """The template's text as HTML. A template whose text is not ours (an instructor's,
        problems/authored) brings its own renderer, which escapes raw HTML and bounds TeX;
        the engine's render_markdown passes raw HTML through and is for our text only."""
        own = getattr(self.template, "render_html", None)
        return own(markdown) if own is not None else render_markdown(markdown)

    def statement_html(self) -> str:
        return self.render_html(self.statement_markdown())

    def solution_markdown(self) -> str:
        return self.template.solution(self.params)

    def solution_html(self) -> str:
        return self.render_html(self.solution_markdown())

    def grade(self, part_name: str, text: str) -> GradeResult:
        part = self.parts.get(part_name)
        if part is None:
            raise ParamError(
                f"{self.template.slug}: unknown part {part_name!r} (parts: {', '.join(self.parts)})"
            )
        return grade_part(
            part,
            text,
            # derived only for a wrong answer (grade_part says why)
            misconceptions=lambda: self.misconceptions,
            hints=self.template.factor_hints(self.params),
        )

    def solve_dict(self) -> dict[str, Any]:
        return {
            "slug": self.template.slug,
            "version": self.template.version,
            "parts": {
                name: {"value": part.value, "unit": part.unit} for name, part in self.parts.items()
            },
        }
