"""Inserted values in an authored template's text: `{{expr}}` and `{{expr | unit}}`.

A statement, label, feedback, hint or solution is Markdown with `$TeX$`, and with values
put in by `{{expr}}` (the expression's value) or `{{expr | GB}}` (the value, taken in the
unit's base unit, bytes here, written in GB with the unit after it). The slots are found
by a scan with str.find, linear in the text (a pattern such as `{{(.*?)}}` would go back
over the rest of the text from every unclosed `{{`), and each expression is parsed once,
when the template is loaded, with the expression language's bounds.

Numbers are written so a learner can redo the arithmetic: whole values in full
(`65536`), others to six significant figures without an exponent between 10^-4 and
10^15, with one outside it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from problems.authored import expr as ex
from problems.engine.units import parse_unit

MAX_SLOTS = 200  # inserted values in one text
FIGURES = 6


@dataclass(frozen=True)
class Slot:
    expr: ex.Expr
    unit: str | None
    factor: Fraction  # the unit's size in its base unit (GB: 10^9 bytes)


@dataclass(frozen=True)
class Text:
    """A text with its slots parsed: literal pieces and Slots, in order."""

    source: str
    pieces: tuple[str | Slot, ...]


def _slot(inner: str, scope: ex.Scope) -> Slot:
    body, bar, unit = inner.partition("|")
    if not bar:
        return Slot(ex.parse(body, scope), None, Fraction(1))
    unit = unit.strip()
    info = parse_unit(unit)
    if not unit or info is None:
        raise ex.ExprError(f"unknown unit {unit!r} after '|'")
    return Slot(ex.parse(body, scope), info.symbol or unit, Fraction(repr(info.factor)))


def parse_text(source: str, scope: ex.Scope) -> Text:
    """The text's pieces; ExprError naming the slot (`{{model.layers}}: ...`) if one is bad."""
    pieces: list[str | Slot] = []
    i = 0
    while True:
        start = source.find("{{", i)
        if start < 0:
            break
        end = source.find("}}", start + 2)
        if end < 0:
            raise ex.ExprError("a '{{' is never closed by '}}'")
        if len(pieces) >= 2 * MAX_SLOTS:
            raise ex.ExprError(f"more than {MAX_SLOTS} inserted values")
        inner = source[start + 2 : end]
        try:
            slot = _slot(inner, scope)
        except ex.ExprError as err:
            shown = inner if len(inner) <= 60 else inner[:57] + "..."
            raise ex.ExprError(f"{{{{{shown}}}}}: {err}") from None
        pieces += [source[i:start], slot]
        i = end + 2
    pieces.append(source[i:])
    return Text(source, tuple(p for p in pieces if p != ""))


def format_number(x: Fraction | float) -> str:
    """A value as the text shows it (the module docstring says how)."""
    if isinstance(x, Fraction) and x.denominator == 1:
        return str(x.numerator)
    f = float(x)
    if f == 0:
        return "0"
    if f.is_integer() and abs(f) < 1e15:
        return str(int(f))
    magnitude = math.floor(math.log10(abs(f)))
    if -4 <= magnitude < 15:
        decimals = max(0, FIGURES - 1 - magnitude)
        return f"{f:.{decimals}f}".rstrip("0").rstrip(".")
    return f"{f:.{FIGURES - 1}e}"


def format_value(value: ex.Value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    return format_number(value)


def render_text(text: Text, env: ex.Env) -> str:
    """The text with every slot filled for these parameters (ExprError if one fails)."""
    out: list[str] = []
    for piece in text.pieces:
        if isinstance(piece, str):
            out.append(piece)
            continue
        value = ex.evaluate(piece.expr, env)
        if piece.unit is None:
            out.append(format_value(value))
            continue
        if isinstance(value, str | bool):
            raise ex.ExprError(f"{piece.expr.source.strip()} is not a number, so it has no unit")
        out.append(f"{format_number(ex.checked(value / piece.factor))} {piece.unit}")
    return "".join(out)
