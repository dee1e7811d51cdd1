"""An authored template as an engine Template: drawn, solved and graded like a built-in one.

AuthoredTemplate is built from a validated, compiled file (rules.py). Its Params class is
made for it (pydantic.create_model on the engine's Params base: unknown names refused,
values frozen), so a variant's parameters are stored, validated and replayed as any
template's are. A parameter's stored value is what a learner could have been shown: an
integer, a decimal or a word (a catalog slug for a record); the expression language reads
a decimal back exactly by its shortest form.

generate(rng) draws the parameters in the file's order (a later range may use an earlier
parameter) and redraws the whole set, from the same rng, until every constraint holds, at
most MAX_DRAWS times; so a seed always gives the same variant. solve() evaluates each
part's answer exactly and converts it from the answer's unit into the unit the part asks
for; misconceptions() does the same for each named slip. Text comes back as Markdown with
the values inserted, and `render_html` is the escaping renderer (markup.py) that must be
used for it: Variant uses it in place of the engine's renderer for our own templates.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, StrictFloat, StrictInt, create_model

from problems.authored import catalog
from problems.authored import expr as ex
from problems.authored.markup import render_author_markdown
from problems.authored.rules import AuthoringError, Compiled, CParam, CPart, range_values
from problems.authored.text import Text, render_text
from problems.engine.template import Kind, Misconception, Params, Part, Template

MAX_DRAWS = 200
FAMILY = "authored"


def _stored(value: ex.Value) -> int | float | str:
    """A drawn number as a parameter stores it: whole values as int, others as float."""
    if isinstance(value, Fraction):
        return value.numerator if value.denominator == 1 else float(value)
    return value  # type: ignore[return-value]


class AuthoredParams(Params):
    """Parameters of an authored template: any parameter name the format allows (a name
    such as `model_size` is the author's, not pydantic's namespace)."""

    model_config = ConfigDict(extra="forbid", frozen=True, protected_namespaces=())


class AuthoredTemplate(Template):
    """The engine's Template protocol over one compiled authored file."""

    family = FAMILY
    kind = "authored"
    # The course a stored template belongs to (set by the authoring app when it builds
    # one from the database); None for a file read by the command line.
    owner_course: str | None = None

    def __init__(self, compiled: Compiled) -> None:
        spec = compiled.spec
        self.compiled = compiled
        self.spec = spec
        self.slug = spec.slug
        self.version = spec.version or 1
        self.title = spec.title
        self.lessons = tuple(spec.lessons)
        self.skills = tuple(spec.skills)
        self.difficulty = spec.difficulty
        self.sources = tuple(spec.sources)
        self.Params = create_model(  # type: ignore[misc]
            "Params_" + spec.slug.replace("-", "_"),
            __base__=AuthoredParams,
            **_param_fields(compiled),
        )

    # ------------------------------------------------------------------ drawing

    def generate(self, rng: random.Random) -> Params:
        why = "no draw"
        for _ in range(MAX_DRAWS):
            drawn, why = self._draw(rng)
            if drawn is not None:
                return self.Params(**drawn)
        raise AuthoringError(
            [f"constraints: no draw in {MAX_DRAWS} satisfied them all (last: {why})"]
        )

    def _draw(self, rng: random.Random) -> tuple[dict[str, Any] | None, str]:
        """One candidate set of parameters, or None and why it was thrown away."""
        drawn: dict[str, Any] = {}
        env: dict[str, Any] = {}
        for p in self.compiled.params:
            if p.kind == "range":
                low, high, step = p.bounds  # type: ignore[misc]
                try:
                    lo, st, count = range_values(
                        ex.evaluate(low, env),
                        ex.evaluate(high, env),
                        None if step is None else ex.evaluate(step, env),
                    )
                except ex.ExprError as err:
                    return None, f"params.{p.name}: {err}"
                value: Any = _stored(lo + st * rng.randrange(count))
            else:
                value = rng.choice(p.options)
            drawn[p.name] = value
            env[p.name] = self._read(p.kind, value)
        for i, constraint in enumerate(self.compiled.constraints):
            try:
                holds = ex.evaluate(constraint, env)
            except ex.ExprError as err:
                raise AuthoringError([f"constraints[{i}]: {err}"]) from None
            if holds is not True:
                return None, f"constraints[{i}] failed"
        return drawn, ""

    @staticmethod
    def _read(kind: str, value: Any) -> Any:
        if kind in catalog.KINDS:
            return catalog.record(kind, value)
        return value if isinstance(value, str) else ex.from_number(value)

    def env(self, p: Params) -> dict[str, Any]:
        """The values expressions read for these parameters."""
        kinds = {c.name: c.kind for c in self.compiled.params}
        return {name: self._read(kinds[name], getattr(p, name)) for name in kinds}

    # ------------------------------------------------------------------ answers

    def _value(self, part: CPart, path: str, source: ex.Expr, env: dict[str, Any]) -> Any:
        try:
            value = ex.evaluate(source, env)
        except ex.ExprError as err:
            raise AuthoringError([f"{path}: {err}"]) from None
        if part.kind is Kind.CHOICE:
            if not isinstance(value, str) or value not in part.choices:
                raise AuthoringError([f"{path}: gives {value!r}, not one of the choices"])
            return value
        if isinstance(value, str | bool):
            raise AuthoringError([f"{path}: gives {value!r}, not a number"])
        scaled = ex.checked(value * part.scale)
        if part.kind is Kind.INTEGER:
            if isinstance(scaled, Fraction) and scaled.denominator == 1:
                return scaled.numerator
            if isinstance(scaled, float) and scaled.is_integer():
                return int(scaled)
            raise AuthoringError([f"{path}: an integer part's answer is {float(scaled):.6g}"])
        return float(scaled)

    def solve(self, p: Params) -> dict[str, Part]:
        env = self.env(p)
        out: dict[str, Part] = {}
        for i, part in enumerate(self.compiled.parts):
            value = self._value(part, f"parts[{i}].answer", part.answer, env)
            out[part.name] = Part(
                name=part.name,
                value=value,
                unit=part.unit,
                kind=part.kind,
                tolerance=part.tolerance,
                choices=part.choices,
                label=self._text(f"parts[{i}].label", part.label, env),
            )
        return out

    def misconceptions(self, p: Params) -> list[Misconception]:
        env = self.env(p)
        out: list[Misconception] = []
        for i, part in enumerate(self.compiled.parts):
            for j, m in enumerate(part.misconceptions):
                where = f"parts[{i}].misconceptions[{j}]"
                value = self._value(part, f"{where}.answer", m.answer, env)
                feedback = self._text(f"{where}.feedback", m.feedback, env)
                out.append(Misconception(m.code, part.name, value, feedback))
        return out

    # --------------------------------------------------------------------- text

    @staticmethod
    def _text(path: str, text: Text, env: dict[str, Any]) -> str:
        try:
            return render_text(text, env)
        except ex.ExprError as err:
            raise AuthoringError([f"{path}: {err}"]) from None

    def statement(self, p: Params) -> str:
        return self._text("statement", self.compiled.statement, self.env(p))

    def solution(self, p: Params) -> str:
        return self._text("solution", self.compiled.solution, self.env(p))

    def hints(self, p: Params) -> list[str] | None:
        """The author's hints with values inserted; None when the file gives none (then
        the engine cuts hints from the solution, as for a built-in template)."""
        if not self.compiled.hints:
            return None
        env = self.env(p)
        return [self._text(f"hints[{i}]", h, env) for i, h in enumerate(self.compiled.hints)]

    @staticmethod
    def render_html(markdown: str) -> str:
        """Author text as safe HTML: raw HTML escaped, links checked, TeX bounded."""
        return render_author_markdown(markdown)


def _param_fields(compiled: Compiled) -> dict[str, Any]:
    """Each parameter's type for the Params model: a catalog record or a list of words
    as the words it may be, a range as a number within its bounds when they are fixed
    (so stored parameters from elsewhere are held to what the generator could draw)."""
    fields: dict[str, Any] = {}
    for p in compiled.params:
        words = p.kind in catalog.KINDS or all(isinstance(v, str) for v in p.options)
        if p.kind != "range" and words:
            fields[p.name] = (Literal[tuple(p.options)], ...)
        elif p.kind == "choices":
            fields[p.name] = (StrictInt | StrictFloat | str, ...)
        else:
            fields[p.name] = (Annotated[StrictInt | StrictFloat, Field(**_limits(p))], ...)
    return fields


def _limits(p: CParam) -> dict[str, float]:
    low, high, _step = p.bounds  # type: ignore[misc]
    if low.names or high.names:
        return {}
    lo, hi = ex.evaluate(low, {}), ex.evaluate(high, {})
    return {"ge": float(lo), "le": float(hi)}  # type: ignore[arg-type]
