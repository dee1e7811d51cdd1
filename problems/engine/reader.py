"""The strict answer reader: one number, an optional unit, nothing else.

Grammar (after trimming surrounding whitespace):

    answer   := approx? "$"? number (space* unit)?
    approx   := "~" | "≈"                          (ignored)
    number   := sign? mantissa exponent?
    sign     := "+" | "-" | "−"
    mantissa := digits ("." digits?)? | "." digits  (digits may be grouped by commas in
                                                     threes: 1,234,567.8)
    exponent := ("e" | "E") sign? digits
              | space? ("×" | "x" | "*") space? "10^" sign? digits
    unit     := whatever units.parse_unit accepts ("GB", "GiB", "GB/s", "ms", "%", "x"...)

A leading "$" means USD and may be followed only by a per-unit ("$0.12/kWh").
Digits are ASCII: other scripts' digits ("٣٫٥", full-width "１２"), which Python's
float() would read, are refused with a message saying so. A comma groups thousands only:
"1,5" and "1.234,5" (decimal commas) are refused, never read as 1.5 or 1234.5.
Nothing is ever evaluated: the text is matched by regular expressions over ASCII digits,
and only a string that matched them is given to float().
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from problems.engine.units import explain_unknown_unit, parse_unit

__all__ = ["MAX_NUMBER_CHARS", "MAX_TEXT_CHARS", "Reading", "read_answer"]

MAX_TEXT_CHARS = 64
MAX_NUMBER_CHARS = 40


@dataclass(frozen=True, slots=True)
class Reading:
    """The outcome of reading an answer: a value and its unit, or an error to show."""

    ok: bool
    value: float | None
    unit: str
    error: str = ""


_NUMBER = re.compile(
    r"""
    (?P<num>
      (?P<sign>[+-])?
      (?P<mant>
          (?:[0-9]{1,3}(?:,[0-9]{3})+(?![0-9,])|[0-9]+)(?:\.[0-9]*)?
        | \.[0-9]+
      )
      (?:
          [eE](?P<exp>[+-]?[0-9]+)
        | [ ]?[x×*][ ]?10\^(?P<pow>[+-]?[0-9]+)
      )?
    )
    """,
    re.VERBOSE,
)
_PREFIX = re.compile(r"(?P<approx>[~≈][ ]*)?(?P<dollar>\$[ ]?)?")
_SPACES = re.compile(r"[ \t\u00a0\u2009\u202f]*")
_OPERATOR = re.compile(r"[()\[\]{}+*/^=%<>!&|]|[0-9.]\s*-\s*[0-9.]|[A-Za-z_]\w*\s*\(")
_NOT_FINITE = re.compile(r"[+-]?(nan|inf|infinity)", re.IGNORECASE)


def _expected(default_unit: str) -> str:
    unit = default_unit if default_unit and parse_unit(default_unit) else "GB"
    return f"Expected a number with an optional unit, like 80.5 or 80.5 {unit}."


def _fail(message: str, default_unit: str) -> Reading:
    return Reading(False, None, "", f"{message} {_expected(default_unit)}".strip())


def read_answer(text: str, *, default_unit: str = "") -> Reading:
    """Read one learner answer. Never raises; never evaluates anything.

    A bare number is in `default_unit`; a number with a unit keeps that unit, spelled
    canonically ("GBps" -> "GB/s", "bytes" -> "B"). Conversion is the grader's job.
    """
    try:
        return _read(text, default_unit if isinstance(default_unit, str) else "")
    except Exception:  # defensive: the grammar should make this unreachable
        return _fail("Could not read that answer.", "")


def _read(text: str, default_unit: str) -> Reading:
    if not isinstance(text, str):
        return _fail("The answer must be text.", default_unit)
    if len(text) > 4 * MAX_TEXT_CHARS:
        return _fail(f"That answer is too long (at most {MAX_TEXT_CHARS} characters).", "")
    s = text.strip()
    if "−" in s or "\u2013" in s:  # minus signs as rendered maths shows them
        s = s.replace("−", "-").replace("\u2013", "-")
    if not s:
        return _fail("The answer is empty.", default_unit)
    if len(s) > MAX_TEXT_CHARS:
        return _fail(
            f"That answer is too long (at most {MAX_TEXT_CHARS} characters).", default_unit
        )

    foreign = next((c for c in s if (c.isdecimal() and not c.isascii()) or c in "٫٬"), None)
    if foreign is not None:
        return _fail(f"Type the digits 0 to 9 ('{foreign}' is not read as a digit).", default_unit)

    pos, dollar = 0, False
    if s[0] in "~≈$":
        prefix = _PREFIX.match(s)
        pos = prefix.end()
        dollar = prefix.group("dollar") is not None
    m = _NUMBER.match(s, pos)
    if m is None:
        if _NOT_FINITE.fullmatch(s.split(" ", 1)[0]):
            return _fail("The answer must be a finite number, not NaN or infinity.", default_unit)
        return _fail(_why_not_a_number(s), default_unit)

    num = m.group("num")
    if len(num) > MAX_NUMBER_CHARS:
        return _fail(
            f"That number is too long (at most {MAX_NUMBER_CHARS} characters).", default_unit
        )
    exponent = m.group("exp") or m.group("pow") or "0"
    literal = f"{m.group('sign') or ''}{m.group('mant').replace(',', '')}e{exponent}"
    value = float(literal)  # `literal` matched [+-]?[0-9.]+e[+-]?[0-9]+ : plain ASCII
    if math.isinf(value):
        return _fail("That number is too large.", default_unit)
    if value == 0.0 and any(c in "123456789" for c in m.group("mant")):
        return _fail("That number is too small (it rounds to zero).", default_unit)

    rest = s[_SPACES.match(s, m.end()).end() :]
    if dollar:
        if rest and not rest.startswith("/"):
            return _fail("Give the unit once: '$' already says USD.", default_unit)
        rest = "USD" + rest
    if not rest:
        return Reading(True, value, default_unit)

    info = parse_unit(rest)
    if info is None:
        if rest.startswith(","):
            return _fail(
                "Commas may only separate groups of three digits, like 1,234,567.8 "
                "(use '.' for decimals).",
                default_unit,
            )
        if _OPERATOR.search(s) and not _looks_like_unit(rest):
            return _fail(_EXPRESSION, default_unit)
        reason = explain_unknown_unit(rest)
        return _fail(reason if reason.endswith(("?", ".")) else f"{reason}.", default_unit)
    return Reading(True, value, info.symbol)


_EXPRESSION = "Give a single number, not an expression: work it out and type the result."


def _looks_like_unit(rest: str) -> bool:
    """A unit-ish tail such as "Gb/sec" or "GB/s/x": letters around a "/", no digits."""
    return not any(c.isdigit() for c in rest) and "(" not in rest and "+" not in rest


def _why_not_a_number(s: str) -> str:
    if _OPERATOR.search(s):
        return _EXPRESSION
    return "That is not a number."
