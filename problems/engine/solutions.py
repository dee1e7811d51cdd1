"""Worked solutions built from each template's symbolic formula.

A template declares its formula once with sympy's operators (`formula("M", lambda s: s.N *
s.b, ...)`); a worked step shows the formula, the same formula with this variant's values
in place of the symbols, and the result. Learner text never reaches sympy.

The printed forms come from formula_tex.json (problems.engine.formula_tex says why), so a
serving process never imports sympy: a formula's expression is built, by calling its
`build` with sympy's Symbols, only where the file lacks it and in the tests that keep the
file true. sympy's functions are reached through `sp` for the same reason.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from types import SimpleNamespace
from typing import Any

from problems.engine import formula_tex
from problems.engine.numbers import tex


class _Sympy:
    """sympy's namespace, imported at first use: write `sp.floor(...)`, `sp.sqrt(...)`
    inside a formula's build, which runs only where sympy is wanted anyway."""

    def __getattr__(self, name: str) -> Any:
        import sympy

        return getattr(sympy, name)


sp = _Sympy()


@dataclass(frozen=True)
class Formula:
    """`lhs` is LaTeX for the quantity; `build` makes the sympy expression from a
    namespace of Symbols; `names` maps a value key to the LaTeX name of its symbol;
    `meanings` maps a value key to the words that define its symbol ("the number of
    devices"), for the symbols a statement does not name itself (see `where`); `origin`
    is the declaring module and the formula's place in it (formula_tex.json's key)."""

    lhs: str
    build: Callable[[SimpleNamespace], Any] = field(compare=False)
    names: dict[str, str] = field(hash=False)
    meanings: dict[str, str] = field(default_factory=dict, hash=False)
    origin: str = ""

    @cached_property
    def symbols(self) -> dict[str, Any]:
        return {key: sp.Symbol(name) for key, name in self.names.items()}

    @cached_property
    def expr(self) -> Any:
        return self.build(SimpleNamespace(**self.symbols))

    @cached_property
    def printed(self) -> formula_tex.FormulaTex:
        return formula_tex.lookup(self) or formula_tex.typeset(self)

    @property
    def symbolic(self) -> str:
        return self.printed.symbolic

    def substituted(self, values: dict[str, float | str]) -> str:
        """Values may be numbers or ready LaTeX ("2^{30}")."""
        return self.printed.fill(
            {k: v if isinstance(v, str) else tex(v) for k, v in values.items() if k in self.names}
        )


_DECLARED: list[Formula] = []
_PLACES: Counter[str] = Counter()


def declared() -> list[Formula]:
    """Every formula declared so far (each template's, once the registry is loaded)."""
    return list(_DECLARED)


def formula(
    lhs: str,
    build: Callable[[SimpleNamespace], Any],
    *,
    meanings: dict[str, str] | None = None,
    **names: str,
) -> Formula:
    """Declare a Formula with sympy operators (no string parsing anywhere).

    `names` maps a value key to the LaTeX name shown for it (L="L", kv=r"H_{\\mathrm{kv}}");
    `build` receives a namespace of those symbols: formula("M", lambda s: s.N * s.b, ...);
    sympy's functions come from `sp` (lambda s: sp.floor(s.R / s.Q)).
    `meanings` gives some keys their words, for `where` to print.
    """
    unknown = set(meanings or {}) - set(names)
    if unknown:
        raise ValueError(f"meanings for symbols the formula does not have: {sorted(unknown)}")
    module = sys._getframe(1).f_globals.get("__name__", "?")
    origin = f"{module}#{_PLACES[module]}"
    _PLACES[module] += 1
    declared_formula = Formula(
        lhs=lhs, build=build, names=dict(names), meanings=dict(meanings or {}), origin=origin
    )
    _DECLARED.append(declared_formula)
    return declared_formula


def where(f: Formula, *keys: str, values: dict[str, float | str] | None = None) -> str:
    """A sentence that defines symbols of `f` in words, each by its meaning, with its
    value where `values` has one: "Here $n = 2$ is the number of devices and $c = 2^{30}$
    the bytes in a GiB." A worked solution names every symbol of its formulas that the
    statement has not (tests/problems/test_symbols_defined.py checks every template)."""
    if not keys:
        return ""
    values = values or {}

    def named(key: str) -> str:
        name = f.printed.names[key]
        if key not in values:
            return f"${name}$"
        value = values[key]
        return f"${name} = {value if isinstance(value, str) else tex(value)}$"

    items = [f"{named(k)}{' is' if i == 0 else ''} {f.meanings[k]}" for i, k in enumerate(keys)]
    listed = items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"
    return f"Here {listed}."


def unit_tex(unit: str) -> str:
    """A unit as upright LaTeX: B, GiB, USD/GPU-h (the hyphen a hyphen, not a minus)."""
    # "%" opens a LaTeX comment; escape it so "%" and r"\%" both render as a percent sign.
    unit = unit.replace(r"\%", "%").replace("%", r"\%")
    unit = unit.replace(r"\text{-}", "-").replace("-", r"\text{-}")
    return f"\\mathrm{{{unit}}}"


def step(f: Formula, values: dict[str, float | str], result: float | str, unit: str = "") -> str:
    """One display-math line: lhs = formula = values = result unit."""
    shown = result if isinstance(result, str) else tex(result)
    unit_part = f"\\ {unit_tex(unit)}" if unit else ""
    return f"$$ {f.lhs} = {f.symbolic} = {f.substituted(values)} = {shown}{unit_part} $$"
