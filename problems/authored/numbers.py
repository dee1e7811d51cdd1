"""Values of the expression language and the functions it may call, within the bounds.

An exact value is a fractions.Fraction whose numerator and denominator stay below
MAX_INT (10^100); a float (from sqrt, exp, the logs, a fractional power, or arithmetic
with a float) must be finite; text and booleans are as they are. Every result an
expression computes passes through `checked`, so a value past a bound stops the
evaluation there with an ExprError. The bounds are the spec's (shared/spec/authoring.md);
expr.py holds the parser and the evaluator.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

MAX_CHARS = 2_000
MAX_DEPTH = 50
MAX_EXPONENT = 64
MAX_INT = 10**100
MAX_BITS = MAX_INT.bit_length()
MAX_STRING = 200  # characters in one string literal: a choice word, a name

Value = Fraction | float | bool | str


class ExprError(ValueError):
    """An expression refused or failing to evaluate; the message is one plain line."""


def exact(x: Fraction) -> Fraction:
    if abs(x.numerator) >= MAX_INT or x.denominator >= MAX_INT:
        raise ExprError("a value reaches 10^100, beyond the integer bound")
    return x


def finite(x: float) -> float:
    if not math.isfinite(x):
        raise ExprError("a value is not finite")
    return x


def checked(x: Any) -> Value:
    """A computed value within the bounds, exact integers as Fractions."""
    if isinstance(x, bool | str):
        return x
    if isinstance(x, int):
        return exact(Fraction(x))
    if isinstance(x, Fraction):
        return exact(x)
    if isinstance(x, float):
        return finite(x)
    raise ExprError(f"a value of an unexpected kind ({type(x).__name__})")


def from_number(x: int | float) -> Value:
    """A stored parameter value as the language reads it: a float by its shortest decimal
    (0.3 stored is 3/10 again), so a range stepped in tenths stays exact."""
    if isinstance(x, bool):
        return x
    if isinstance(x, int):
        return checked(x)
    finite(x)
    return checked(Fraction(repr(x)))


# ------------------------------------------------------------------------ functions


def num(x: Value, what: str) -> Fraction | float:
    if isinstance(x, str):
        raise ExprError(f"{what} needs a number, not the text {x!r}")
    return Fraction(int(x)) if isinstance(x, bool) else x


def _float_fn(name: str, fn: Callable[[float], float]) -> Callable[..., Value]:
    def call(x: Value) -> Value:
        try:
            return finite(fn(float(num(x, name))))
        except (ValueError, OverflowError):
            raise ExprError(f"{name}() of {show(x)} is not defined") from None

    return call


def _round(x: Value, digits: Value | None = None) -> Value:
    x = num(x, "round()")
    if digits is None:
        return checked(round(x))
    d = num(digits, "round()")
    if d != int(d) or abs(d) > MAX_EXPONENT:
        raise ExprError(f"round()'s digits must be a whole number up to {MAX_EXPONENT}")
    return checked(round(x, int(d)))


def _minmax(pick: Callable[..., Any], name: str) -> Callable[..., Value]:
    def call(*args: Value) -> Value:
        if not args:
            raise ExprError(f"{name}() needs at least one value")
        return pick(num(a, f"{name}()") for a in args)

    return call


FUNCTIONS: dict[str, Callable[..., Value]] = {
    "min": _minmax(min, "min"),
    "max": _minmax(max, "max"),
    "abs": lambda x: checked(abs(num(x, "abs()"))),
    "ceil": lambda x: checked(math.ceil(num(x, "ceil()"))),
    "floor": lambda x: checked(math.floor(num(x, "floor()"))),
    "round": _round,
    "sqrt": _float_fn("sqrt", math.sqrt),
    "exp": _float_fn("exp", math.exp),
    "log": _float_fn("log", math.log),
    "log2": _float_fn("log2", math.log2),
    "log10": _float_fn("log10", math.log10),
}
ARITY = {"round": (1, 2), "min": (1, 64), "max": (1, 64)}


def show(x: Value) -> str:
    if isinstance(x, Fraction):
        return str(x.numerator) if x.denominator == 1 else f"{float(x):.6g}"
    return repr(x)
