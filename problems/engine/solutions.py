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
    """`lhs` is LaTeX for the quantity; `symbols` maps a value key to its sympy Symbol."""

    lhs: str
    expr: sympy.Expr
    symbols: dict[str, sympy.Symbol] = field(hash=False)

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


def formula(lhs: str, build: Callable[[SimpleNamespace], sympy.Expr], **names: str) -> Formula:
    """Build a Formula with sympy operators (no string parsing anywhere).

    `names` maps a value key to the LaTeX name shown for it (L="L", kv=r"H_{\\mathrm{kv}}");
    `build` receives a namespace of those symbols: formula("M", lambda s: s.N * s.b, ...).
    """
    symbols = {key: sympy.Symbol(latex_name) for key, latex_name in names.items()}
    expr = build(SimpleNamespace(**symbols))
    return Formula(lhs=lhs, expr=expr, symbols=symbols)


def unit_tex(unit: str) -> str:
    """A unit as upright LaTeX: B, GiB, USD/GPU-h (the hyphen a hyphen, not a minus)."""
    # "%" opens a LaTeX comment; escape it so "%" and r"\%" both render as a percent sign.
    unit = unit.replace(r"\%", "%").replace("%", r"\%").replace("-", r"\text{-}")
    return f"\\mathrm{{{unit}}}"


def step(f: Formula, values: dict[str, float | str], result: float | str, unit: str = "") -> str:
    """One display-math line: lhs = formula = values = result unit."""
    shown = result if isinstance(result, str) else tex(result)
    unit_part = f"\\ {unit_tex(unit)}" if unit else ""
    return f"$$ {f.lhs} = {f.symbolic} = {f.substituted(values)} = {shown}{unit_part} $$"
