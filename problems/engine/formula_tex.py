"""The LaTeX of every template's formula, typeset by sympy once and kept in
formula_tex.json, so that a serving process fills in a variant's numbers without sympy.

Why: sympy is the clearest way to declare a formula (its operators, no string parsing)
and to typeset it, but importing it costs every process about 33 MB, and a web worker
needs only the printed result: the formula as symbols, each symbol's name, and the
formula with this variant's values in place of the symbols. The last is kept as a
skeleton with a mark per symbol ("⟦n⟧" for the key n), filled in by `FormulaTex.fill`.

sympy's printer looks at what it prints in one place that matters here: a power's base
that contains a superscript is put in parentheses ("\\left(10^{21}\\right)^{2}",
`parenthesize_super`). The skeleton marks such a base "⟦n^⟧", and `fill` wraps a value
there exactly when sympy would. Everything else it decides from the expression, not from
the printed names.

`make formulas` writes the file (`python -m problems.engine.typeset_formulas`);
tests/problems/test_formula_tex.py holds every entry to sympy's own output, for drawn
values, and fails when one is missing or stale. A formula the file does not know (a
template being written) is typeset by sympy where it is first used, at that process's
memory cost, and nothing else changes.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from problems.engine.solutions import Formula

PATH = Path(__file__).with_name("formula_tex.json")
_MARK = re.compile(r"⟦(\w+)(\^?)⟧")


@dataclass(frozen=True)
class FormulaTex:
    """A formula's printed forms: `symbolic` as sympy.latex prints it, `names` each
    key's symbol as sympy prints it, and `skeleton` the formula as printed with
    `mul_symbol="times"`, each symbol marked by its key."""

    symbolic: str
    names: dict[str, str]
    skeleton: str

    def fill(self, values: dict[str, str]) -> str:
        """The skeleton with each key's LaTeX from `values`, else its symbol's name."""

        def put(mark: re.Match) -> str:
            key = mark.group(1)
            text = values.get(key, self.names[key])
            if mark.group(2) and "^" in text:
                return r"\left(" + text + r"\right)"
            return text

        return _MARK.sub(put, self.skeleton)


def typeset(formula: Formula) -> FormulaTex:
    """The formula's printed forms, from sympy (the one place it is needed: the file
    holds every template's, so a serving process never calls this)."""
    import sympy

    keys = list(formula.names)
    symbols = formula.symbols
    marks = {symbols[key]: f"⟦{key}⟧" for key in keys}
    if len(marks) != len(keys):
        raise ValueError(f"{formula.origin}: two keys name the same symbol")
    printer = _mark_printer()({"symbol_names": marks, "mul_symbol": "times"})
    return FormulaTex(
        symbolic=sympy.latex(formula.expr),
        names={key: sympy.latex(symbols[key]) for key in keys},
        skeleton=printer.doprint(formula.expr),
    )


@cache
def _mark_printer() -> type:
    """sympy's LaTeX printer, marking a power's base where it would protect a superscript."""
    from sympy.printing.latex import LatexPrinter

    class MarkPrinter(LatexPrinter):
        def parenthesize_super(self, s: str) -> str:
            mark = _MARK.fullmatch(s)
            return f"⟦{mark.group(1)}^⟧" if mark else super().parenthesize_super(s)

    return MarkPrinter


@cache
def _entries() -> dict[str, dict]:
    try:
        return json.loads(PATH.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}


def lookup(formula: Formula) -> FormulaTex | None:
    """The kept forms of this formula, if the file has them for the same declaration:
    its module and place in it, its left-hand side, its symbols' names and its build's
    code. A formula edited since `make formulas` is typeset by sympy instead, so a
    stale entry is never shown (and the tests fail until the file is written again)."""
    entry = _entries().get(formula.origin)
    if (
        entry is None
        or entry["lhs"] != formula.lhs
        or entry["given"] != formula.names
        or entry["build"] != fingerprint(formula.build)
    ):
        return None
    return FormulaTex(entry["symbolic"], entry["names"], entry["skeleton"])


def fingerprint(build) -> str:
    """A digest of a build function's code (its instructions, the names and constants it
    uses, nested code included; not its line numbers). Bytecode is Python's own: another
    minor version of Python changes every digest, and `make formulas` writes them again."""

    def parts(code) -> list:
        consts = [parts(c) if hasattr(c, "co_code") else repr(c) for c in code.co_consts]
        return [code.co_code.hex(), list(code.co_names), consts]

    text = json.dumps(parts(build.__code__))
    return hashlib.sha256(text.encode()).hexdigest()[:16]
