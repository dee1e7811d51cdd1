"""Exact arithmetic and number display shared by templates.

Integer answers (floor, ceil) must not flip at a boundary because 0.1 * 30 is
3.0000000000000004 in binary floating point, so templates compute them on Fractions of
the decimal value a parameter was written as.
"""

from __future__ import annotations

import math
from fractions import Fraction

BYTES_PER_ELEMENT: dict[str, float] = {
    "fp32": 4,
    "fp16": 2,
    "bf16": 2,
    "fp8": 1,
    "int8": 1,
    "int4": 0.5,
    "fp4": 0.5,
}

UNIT_BYTES: dict[str, int] = {
    "B": 1,
    "KB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "TB": 10**12,
    "PB": 10**15,
    "KiB": 2**10,
    "MiB": 2**20,
    "GiB": 2**30,
    "TiB": 2**40,
    "PiB": 2**50,
}

SECONDS: dict[str, float] = {
    "us": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "min": 60.0,
    "h": 3600.0,
    "d": 86400.0,
}


def exact(x: float | int | Fraction) -> Fraction:
    """The decimal value a parameter was written as (0.85 -> 17/20, not 0.8499999...)."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int):
        return Fraction(x)
    return Fraction(repr(float(x)))


def sig(x: float, digits: int = 6) -> str:
    """A number for prose: up to `digits` significant figures, no trailing zeros."""
    if x == 0:
        return "0"
    if isinstance(x, int) or (float(x).is_integer() and abs(x) < 1e15):
        return f"{int(x):,}"
    mag = math.floor(math.log10(abs(x)))
    decimals = max(0, digits - 1 - mag)
    text = f"{x:,.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def tex(x: float | int, digits: int = 6) -> str:
    """A number for LaTeX: scientific notation past a million, {,} as thousands separator."""
    if x == 0:
        return "0"
    ax = abs(x)
    if ax >= 1e6 or ax < 1e-3:
        mant, exp = f"{x:.{digits - 1}e}".split("e")
        mant = mant.rstrip("0").rstrip(".")
        exponent = int(exp)
        if mant in ("1", "-1"):
            return f"{'-' if mant == '-1' else ''}10^{{{exponent}}}"
        return f"{mant} \\times 10^{{{exponent}}}"
    return sig(x, digits).replace(",", "{,}")


def params_count(n: float) -> str:
    """Parameter counts as people say them: 70.6 billion, 405.9 billion, 1.2 trillion."""
    if n >= 1e12:
        return f"{sig(n / 1e12, 5)} trillion"
    if n >= 1e9:
        return f"{sig(n / 1e9, 5)} billion"
    if n >= 1e6:
        return f"{sig(n / 1e6, 5)} million"
    return sig(n)
