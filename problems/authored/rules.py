"""What a valid file must also satisfy as a whole, and the parsed form the template runs.

schema.py checks each field on its own; here every expression is parsed with the names in
scope where it stands (a parameter sees the ones before it; constraints, answers and text
see them all), every catalog slug is looked up, every unit is read by the engine's unit
reader, and each part's settings are checked against its kind. Every problem found is
kept, as a `path: message` line, so an author fixes them all in one round.
"""

from __future__ import annotations

import keyword
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from pydantic import ValidationError

from problems.authored import catalog
from problems.authored import expr as ex
from problems.authored.markup import formulas, tex_problem
from problems.authored.schema import ParamSpec, PartSpec, TemplateSpec, describe
from problems.authored.text import Text, parse_text
from problems.engine.template import Kind, Params
from problems.engine.tolerance import Exact, RelAbs, SigFigs, Tolerance
from problems.engine.units import parse_unit
from problems.engine.variants import ParamError


class AuthoringError(ParamError):
    """A template file that is not valid: every problem, one `path: message` line each."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


@dataclass(frozen=True)
class CParam:
    name: str
    kind: str  # range | choices | model | accelerator
    bounds: tuple[ex.Expr, ex.Expr, ex.Expr | None] | None = None  # low, high, step
    options: tuple[Any, ...] = ()  # choices' values, or catalog slugs


@dataclass(frozen=True)
class CMisconception:
    code: str
    answer: ex.Expr
    feedback: Text


@dataclass(frozen=True)
class CPart:
    name: str
    kind: Kind
    answer: ex.Expr
    unit: str  # the ask unit's symbol: the unit the part is graded in
    scale: Fraction  # answer-unit size / ask-unit size
    tolerance: Tolerance
    choices: tuple[str, ...]
    label: Text
    misconceptions: tuple[CMisconception, ...]


@dataclass(frozen=True)
class Compiled:
    spec: TemplateSpec
    params: tuple[CParam, ...]
    constraints: tuple[ex.Expr, ...]
    statement: Text
    solution: Text
    hints: tuple[Text, ...]
    parts: tuple[CPart, ...]


class _Collector:
    def __init__(self) -> None:
        self.problems: list[str] = []

    def add(self, path: str, message: str) -> None:
        self.problems.append(f"{path}: {message}")

    def expr(self, path: str, source: str, scope: ex.Scope) -> ex.Expr | None:
        try:
            return ex.parse(source, scope)
        except ex.ExprError as err:
            self.add(path, str(err))
            return None

    def text(self, path: str, source: str, scope: ex.Scope) -> Text | None:
        for _start, _end, tex, _display in formulas(source):
            if (why := tex_problem(tex)) is not None:
                self.add(path, why)
                break
        try:
            return parse_text(source, scope)
        except ex.ExprError as err:
            self.add(path, str(err))
            return None


def load_spec(data: Any) -> TemplateSpec:
    """The file's data as a TemplateSpec, or AuthoringError with every shape problem."""
    if not isinstance(data, dict):
        raise AuthoringError(["(file): a template is a mapping of fields (slug, title, ...)"])
    try:
        return TemplateSpec.model_validate(data)
    except ValidationError as err:
        raise AuthoringError(describe(err)) from None


def compile_spec(spec: TemplateSpec) -> Compiled:
    """The parsed template, or AuthoringError with every problem found."""
    c = _Collector()
    scope: dict[str, dict[str, bool] | None] = {}
    params = [_param(c, name, p, scope) for name, p in spec.params.items()]
    constraints = [c.expr(f"constraints[{i}]", s, scope) for i, s in enumerate(spec.constraints)]
    statement = c.text("statement", spec.statement, scope)
    solution = c.text("solution", spec.solution, scope)
    hints = [c.text(f"hints[{i}]", h, scope) for i, h in enumerate(spec.hints)]
    parts = [_part(c, f"parts[{i}]", p, scope) for i, p in enumerate(spec.parts)]
    seen: set[str] = set()
    for i, part in enumerate(spec.parts):
        if part.name in seen:
            c.add(f"parts[{i}].name", f"another part is already named {part.name!r}")
        seen.add(part.name)
    if c.problems:
        raise AuthoringError(c.problems)
    return Compiled(
        spec,
        tuple(params),  # type: ignore[arg-type]
        tuple(constraints),  # type: ignore[arg-type]
        statement,  # type: ignore[arg-type]
        solution,  # type: ignore[arg-type]
        tuple(hints),  # type: ignore[arg-type]
        tuple(parts),  # type: ignore[arg-type]
    )


def _param(c: _Collector, name: str, p: ParamSpec, scope: dict) -> CParam | None:
    path = f"params.{name}"
    kind = p.kind
    usable = True
    if keyword.iskeyword(name) or name in ex.FUNCTIONS or hasattr(Params, name):
        c.add(path, f"{name!r} is a reserved word; name the parameter otherwise")
        usable = False
    if kind in catalog.KINDS:
        slugs = tuple(getattr(p, kind))
        known = catalog.records(kind)
        for i, slug in enumerate(slugs):
            if slug not in known:
                c.add(f"{path}.{kind}[{i}]", f"unknown {kind} {slug!r}")
        fields = [known[s] for s in slugs if s in known]
        names = catalog.field_names(kind)
        scope[name] = {f: all(r.get(f) is not None for r in fields) for f in names}
        return CParam(name, kind, options=slugs) if usable else None
    if kind == "choices":
        values = tuple(p.choices or ())
        if len(set(map(repr, values))) != len(values):
            c.add(f"{path}.choices", "a value is listed twice")
        scope[name] = None
        return CParam(name, kind, options=values) if usable else None
    low_src, high_src = p.range  # type: ignore[misc]
    low = c.expr(f"{path}.range[0]", low_src, scope)
    high = c.expr(f"{path}.range[1]", high_src, scope)
    step = None if p.step is None else c.expr(f"{path}.step", p.step, scope)
    if low and high and (p.step is None or step):
        _constant_range(c, path, low, high, step)
    scope[name] = None
    return CParam(name, kind, bounds=(low, high, step)) if usable and low and high else None


def _constant_range(c: _Collector, path: str, low: ex.Expr, high: ex.Expr, step) -> None:
    """A range whose bounds name no parameter is checked now: it draws at least one value."""
    if low.names or high.names or (step is not None and step.names):
        return
    try:
        range_values(ex.evaluate(low, {}), ex.evaluate(high, {}), step and ex.evaluate(step, {}))
    except ex.ExprError as err:
        c.add(f"{path}.range", str(err))


def range_values(low: Any, high: Any, step: Any) -> tuple[Fraction, Fraction, int]:
    """(low, step, count) of an inclusive stepped range, exact; ExprError if it is empty."""
    if any(isinstance(v, str | bool) for v in (low, high, step)):
        raise ex.ExprError("range bounds and step must be numbers")
    lo, hi = (v if isinstance(v, Fraction) else ex.from_number(v) for v in (low, high))
    if step is None:
        if lo.denominator != 1 or hi.denominator != 1:  # type: ignore[union-attr]
            raise ex.ExprError("give a step: the bounds are not whole numbers")
        step = Fraction(1)
    st = step if isinstance(step, Fraction) else ex.from_number(step)
    if st <= 0:  # type: ignore[operator]
        raise ex.ExprError("the step must be positive")
    if hi < lo:  # type: ignore[operator]
        raise ex.ExprError("the range is empty (its high bound is below its low bound)")
    count = int((hi - lo) // st) + 1  # type: ignore[operator]
    return lo, st, count  # type: ignore[return-value]


def _units(c: _Collector, path: str, p: PartSpec) -> tuple[str, Fraction]:
    unit, ask = p.unit, p.unit if p.ask_unit is None else p.ask_unit
    a, b = parse_unit(unit), parse_unit(ask)
    if a is None:
        c.add(f"{path}.unit", f"unknown unit {unit!r}")
    if b is None:
        c.add(f"{path}.ask_unit", f"unknown unit {ask!r}")
    if a is None or b is None:
        return ask, Fraction(1)
    if a.dims != b.dims:
        c.add(f"{path}.ask_unit", f"{ask!r} is not the same kind of quantity as {unit!r}")
    return b.symbol, Fraction(repr(a.factor)) / Fraction(repr(b.factor))


def _tolerance(c: _Collector, path: str, p: PartSpec) -> Tolerance:
    t = p.tolerance
    if p.kind == "integer":
        if t is not None:
            c.add(f"{path}.tolerance", "an integer part is graded exactly: give no tolerance")
        return Exact()
    if t is None:
        return RelAbs()
    if t.sigfigs is not None:
        return SigFigs(figures=t.sigfigs)
    rel = t.rel if t.rel is not None else 0.0
    return RelAbs(rel=rel, abs=t.abs or 0.0)


def _part(c: _Collector, path: str, p: PartSpec, scope: ex.Scope) -> CPart | None:
    kind = Kind(p.kind)
    if kind is Kind.CHOICE:
        unit, scale, tol = "", Fraction(1), RelAbs()
        for field in ("ask_unit", "tolerance"):
            if getattr(p, field) is not None:
                c.add(f"{path}.{field}", "a choice part has none")
        if p.unit:
            c.add(f"{path}.unit", "a choice part has none")
        if not p.choices:
            c.add(f"{path}.choices", "a choice part lists its choices (at least two)")
        elif len(set(p.choices)) != len(p.choices):
            c.add(f"{path}.choices", "a choice is listed twice")
    else:
        unit, scale = _units(c, path, p)
        tol = _tolerance(c, path, p)
        if p.choices is not None:
            c.add(f"{path}.choices", f"only a choice part has choices (this one is {p.kind})")
    answer = c.expr(f"{path}.answer", p.answer, scope)
    label = c.text(f"{path}.label", p.label, scope)
    slips: list[CMisconception | None] = []
    codes: set[str] = set()
    for j, m in enumerate(p.misconceptions):
        where = f"{path}.misconceptions[{j}]"
        if m.name in codes:
            c.add(f"{where}.name", f"another misconception of this part is named {m.name!r}")
        codes.add(m.name)
        slip_answer = c.expr(f"{where}.answer", m.answer, scope)
        feedback = c.text(f"{where}.feedback", m.feedback, scope)
        ok = slip_answer is not None and feedback is not None
        slips.append(CMisconception(m.name, slip_answer, feedback) if ok else None)  # type: ignore[arg-type]
    if answer is None or label is None or None in slips:
        return None
    choices = tuple(p.choices or ())
    return CPart(p.name, kind, answer, unit, scale, tol, choices, label, tuple(slips))  # type: ignore[arg-type]
