"""Worked solutions built from each template's symbolic formula.

A template declares its formula once as a sympy expression (built at import, never per
variant); a worked step shows the formula, the same formula with this variant's values in
place of the symbols, and the result. Learner text never reaches sympy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from types import SimpleNamespace

import sympy

from problems.engine.numbers import tex


@dataclass(frozen=True)
class Formula:
    """`lhs` is LaTeX for the quantity; `symbols` maps a value key to its sympy Symbol;
    `meanings` maps a value key to the words that define its symbol ("the number of
    devices"), for the symbols a statement does not name itself (see `where`)."""

    lhs: str
    expr: sympy.Expr
    symbols: dict[str, sympy.Symbol] = field(hash=False)
    meanings: dict[str, str] = field(default_factory=dict, hash=False)

    @cached_property
    def symbolic(self) -> str:
        return sympy.latex(self.expr)

    def substituted(self, values: dict[str, float | str]) -> str:
        """Values may be numbers or ready LaTeX ("2^{30}")."""
        names = {
            self.symbols[k]: v if isinstance(v, str) else tex(v)
            for k, v in values.items()
            if k in self.symbols
        }
        return sympy.latex(self.expr, symbol_names=names, mul_symbol="times")


def formula(
    lhs: str,
    build: Callable[[SimpleNamespace], sympy.Expr],
    *,
    meanings: dict[str, str] | None = None,
    **names: str,
) -> Formula:
    """Build a Formula with sympy operators (no string parsing anywhere).

    `names` maps a value key to the LaTeX name shown for it (L="L", kv=r"H_{\\mathrm{kv}}");
    `build` receives a namespace of those symbols: formula("M", lambda s: s.N * s.b, ...).
    `meanings` gives some keys their words, for `where` to print.
    """
    symbols = {key: sympy.Symbol(latex_name) for key, latex_name in names.items()}
    expr = build(SimpleNamespace(**symbols))
    unknown = set(meanings or {}) - set(symbols)
    if unknown:
        raise ValueError(f"meanings for symbols the formula does not have: {sorted(unknown)}")
    return Formula(lhs=lhs, expr=expr, symbols=symbols, meanings=dict(meanings or {}))


def where(f: Formula, *keys: str, values: dict[str, float | str] | None = None) -> str:
    """A sentence that defines symbols of `f` in words, each by its meaning, with its
    value where `values` has one: "Here $n = 2$ is the number of devices and $c = 2^{30}$
    the bytes in a GiB." A worked solution names every symbol of its formulas that the
    statement has not (tests/problems/test_symbols_defined.py checks every template)."""
    if not keys:
        return ""
    values = values or {}

    def named(key: str) -> str:
        name = sympy.latex(f.symbols[key])
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
