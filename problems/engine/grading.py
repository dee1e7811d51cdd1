"""The one grade function: read an answer, score it, and name the mistake behind it.

Order of work for a numeric or integer part: read the text strictly (reader.py), convert
a given unit to the part's unit (or stop at "wrong-unit-kind"), score with the part's
tolerance, and when not correct look for the cause: first the template's own
misconceptions for this part, then a generic detector of known factors on the ratio
between the answer and the correct value. Pure Python: no Django, no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from problems.engine.reader import MAX_TEXT_CHARS, read_answer
from problems.engine.template import FactorHints, Kind, Misconception, Part
from problems.engine.tolerance import Exact, RelAbs
from problems.engine.units import UnitError, convert, describe_kind, parse_unit

__all__ = ["FEEDBACK", "GradeResult", "grade_part", "normalise_choice"]

CORRECT_FEEDBACK = "Correct."
GENERIC_FEEDBACK = "Not correct. Recheck each step of the calculation, and the units."
PARTIAL_FEEDBACK = "Close, but not close enough for full credit."
NOT_WHOLE_FEEDBACK = (
    "This part asks for a whole number: round the way the question says "
    "(down for how many fit, up for how many are needed)."
)

# Teaching feedback for each generic code; "{n}" and "{f}" are filled in where used.
FEEDBACK: dict[str, str] = {
    "allreduce-factor": (
        "A ring all-reduce moves 2(n-1)/n times the message through each GPU: a "
        "reduce-scatter, then an all-gather. With {n} ranks that factor is {f}, and your "
        "answer is off by exactly that: it was left out or applied twice."
    ),
    "per-gpu-vs-total": (
        "Your answer is off by a factor of {n}, the number of GPUs (or ranks) the work is "
        "split across: check whether the question asks per GPU or for the whole job."
    ),
    "gb-vs-gib": (
        "Off by a power of 1.024: GB are powers of ten (1 GB = 10^9 bytes) while GiB are "
        "powers of two (1 GiB = 2^30 bytes, about 7.4% more). Check which one is asked."
    ),
    "bits-vs-bytes": (
        "Off by a factor of 8, the number of bits in a byte: link speeds are usually "
        "quoted in bits per second (Gb/s), memory and storage in bytes (GB/s)."
    ),
    "fraction-vs-percent": (
        "Off by a factor of 100: a fraction of 0.9 is 90%. Check whether the part wants "
        "a percentage (0 to 100) or a fraction (0 to 1)."
    ),
    "unit-scale": (
        "Off by a power of 1000 (or 1024): recheck the unit prefixes. k, M, G and T each "
        "step by 1000 (Ki, Mi, Gi and Ti by 1024), as do s, ms and us."
    ),
    "time-unit": (
        "Off by a time-unit factor (60 s in a minute, 60 min in an hour, 24 h in a day): "
        "put every time into one unit before combining them."
    ),
    "wrong-bytes-per-param": (
        "Off by a factor of 2 or 4, the usual sign of the wrong bytes per element: "
        "fp32 is 4 bytes, bf16 and fp16 2, fp8 and int8 1, int4 and fp4 0.5."
    ),
    "wrong-unit-kind": "This asks for {expected}; {given} is {given_kind}.",
}


@dataclass(frozen=True)
class GradeResult:
    valid: bool
    correct: bool
    score: float
    parsed_value: float | int | str | None
    parsed_unit: str
    misconception: str | None
    feedback: str
    error: str = ""

    def as_dict(self, *, slug: str, part: str) -> dict[str, Any]:
        """The contract's grade JSON; "error" is present only when the answer was invalid."""
        out: dict[str, Any] = {
            "slug": slug,
            "part": part,
            "valid": self.valid,
            "correct": self.correct,
            "score": self.score,
            "parsed": {"value": self.parsed_value, "unit": self.parsed_unit},
            "misconception": self.misconception,
            "feedback": self.feedback,
        }
        if not self.valid:
            out["error"] = self.error
        return out


def _invalid(error: str) -> GradeResult:
    return GradeResult(False, False, 0.0, None, "", None, error, error)


_NO_HINTS = FactorHints()


def grade_part(
    part: Part,
    text: str,
    *,
    misconceptions: Sequence[Misconception] | Callable[[], Sequence[Misconception]] = (),
    hints: FactorHints = _NO_HINTS,
) -> GradeResult:
    """Grade one answer to one part. Never evaluates the text; an unreadable answer gives
    valid=False with an error saying what was expected.

    `misconceptions` may be a function giving them, called only for a readable wrong
    answer: deriving a variant's distinguishable slips (Variant.misconceptions) costs
    30-400 us, which a right answer, the commonest, has no use for."""

    def own() -> list[Misconception]:
        found = misconceptions() if callable(misconceptions) else misconceptions
        return [m for m in found if m.part == part.name]

    if part.kind == Kind.CHOICE:
        return _grade_choice(part, text, own)
    return _grade_number(part, text, own, hints)


# ------------------------------------------------------------------------------ choice

_SUFFIXES = ("bound", "limited")


def normalise_choice(text: str) -> str:
    """A comparison key for a word answer: "Memory-bound", "memory bound", "MEMORY" and
    "memory" all give "memory"; "all_reduce" and "All-Reduce" give "allreduce"."""
    if not isinstance(text, str):
        return ""
    words = text.strip().casefold().replace("_", " ").replace("-", " ").split()
    words = [w.strip(".,;:!?\"'`") for w in words]
    words = [w for w in words if w]
    if len(words) > 1 and words[-1] in _SUFFIXES:
        words.pop()
    return "".join(words)


def _grade_choice(part: Part, text: str, own: Callable[[], list[Misconception]]) -> GradeResult:
    choices = tuple(part.choices) or (str(part.value),)
    listed = ", ".join(choices)
    either = " and ".join((", ".join(choices[:-1]), choices[-1])) if len(choices) > 1 else listed
    if not isinstance(text, str) or len(text) > MAX_TEXT_CHARS:
        return _invalid(f"Expected one word, one of: {listed}.")
    key = normalise_choice(text)
    if not key:
        return _invalid(f"The answer is empty. Expected one of: {listed}.")
    picked = next((c for c in choices if normalise_choice(c) == key), None)
    if picked is None:
        return _invalid(f"Expected one of: {listed}.")
    if key in {normalise_choice(str(c)) for c in (part.value, *part.also_correct)}:
        return GradeResult(True, True, 1.0, picked, "", None, CORRECT_FEEDBACK)
    for m in own():
        if isinstance(m.value, str) and normalise_choice(m.value) == key:
            return GradeResult(True, False, 0.0, picked, "", m.code, m.feedback)
    feedback = f"Not correct. Recheck the comparison that decides between {either}."
    return GradeResult(True, False, 0.0, picked, "", None, feedback)


# ----------------------------------------------------------------------------- numbers


def _grade_number(
    part: Part, text: str, own: Callable[[], list[Misconception]], hints: FactorHints
) -> GradeResult:
    reading = read_answer(text, default_unit=part.unit)
    if not reading.ok or reading.value is None:
        return _invalid(reading.error)
    typed, unit = reading.value, reading.unit
    integer = part.kind == Kind.INTEGER
    shown: float | int = int(typed) if integer and typed.is_integer() else typed

    value = typed
    if unit != part.unit:
        try:
            value = convert(typed, unit, part.unit)
        except UnitError:
            if _count_of_tokens(unit, part.unit):
                value = typed * parse_unit(unit).factor  # type: ignore[union-attr]
            else:
                return GradeResult(
                    True, False, 0.0, shown, unit, "wrong-unit-kind", _kind_message(part, unit)
                )
        if not math.isfinite(value):
            return _invalid(f"That value is out of range once converted to {part.unit}.")
        if integer:
            nearest = round(value)
            if abs(value - nearest) <= 1e-9 * max(1.0, abs(value)):
                value = float(nearest)

    correct_value = float(part.value)
    if integer:
        whole = value.is_integer()
        score = 1.0 if whole and value == correct_value else 0.0
    else:
        score = min(1.0, max(0.0, float(part.tolerance.score(value, correct_value))))
    if score >= 1.0:
        return GradeResult(True, True, 1.0, shown, unit, None, CORRECT_FEEDBACK)

    found = _diagnose(part, value, correct_value, own(), hints)
    if found is not None:
        return GradeResult(True, False, score, shown, unit, found[0], found[1])
    if integer and not value.is_integer():
        feedback = NOT_WHOLE_FEEDBACK
    elif score > 0:
        feedback = PARTIAL_FEEDBACK
    else:
        feedback = GENERIC_FEEDBACK
    return GradeResult(True, False, score, shown, unit, None, feedback)


def _count_of_tokens(unit: str, part_unit: str) -> bool:
    """A plain-number part accepts a count written in tokens ("3.2 tokens")."""
    a, b = parse_unit(unit), parse_unit(part_unit)
    return (
        a is not None
        and b is not None
        and b.dims == ()
        and b.factor == 1.0
        and a.dims == (("[token]", 1),)
    )


def _dimensionless(unit: str) -> bool:
    info = parse_unit(unit)
    return info is not None and info.dims == ()


def _kind_message(part: Part, unit: str) -> str:
    if part.unit:
        expected = f"{describe_kind(part.unit)} ({part.unit})"
    else:
        expected = describe_kind(part.unit)
    return FEEDBACK["wrong-unit-kind"].format(
        expected=expected, given=unit or "a plain number", given_kind=describe_kind(unit)
    )


# --------------------------------------------------------------------------- diagnosis


def _fmt(f: float) -> str:
    return f"{f:.4g}"


def _static_factors() -> tuple[tuple[str, float], ...]:
    out: list[tuple[str, float]] = [("gb-vs-gib", 1.024**k) for k in range(1, 5)]
    out += [("bits-vs-bytes", 8.0), ("fraction-vs-percent", 100.0)]
    scales = sorted({float(b**k) for b in (1000, 1024) for k in range(1, 6)})
    out += [("unit-scale", f) for f in scales]
    out += [("time-unit", f) for f in (60.0, 3600.0, 24.0, 1440.0, 86400.0)]
    out += [("wrong-bytes-per-param", f) for f in (2.0, 4.0)]
    return tuple(out)


_STATIC_FACTORS = _static_factors()


def _factors(hints: FactorHints) -> Iterator[tuple[str, float, str]]:
    """(code, factor, feedback) in the order the detector tries them."""
    n = hints.ranks
    if n is not None and n > 2:
        f = 2 * (n - 1) / n
        yield "allreduce-factor", f, FEEDBACK["allreduce-factor"].format(n=n, f=_fmt(f))
    p = hints.parallelism
    if p is not None and p > 1:
        yield "per-gpu-vs-total", float(p), FEEDBACK["per-gpu-vs-total"].format(n=p)
    for code, f in _STATIC_FACTORS:
        yield code, f, FEEDBACK[code]


DEFAULT_SLIP_REL = 0.01  # slips of a part graded by an absolute floor alone


def _within_tolerance(part: Part) -> Callable[[float, float], bool]:
    """near(answer, target) for a numeric part: as close as a correct answer must be."""
    tol = part.tolerance
    if isinstance(tol, Exact):  # products of floats are never exactly equal
        return lambda answer, target: math.isclose(answer, target, rel_tol=1e-9)
    if type(tol) is RelAbs:
        # RelAbs.score's relative test, with the settings read once: the detector may try
        # some 70 targets, and a model method call costs ~1 us each. An absolute floor is
        # left out: it says how finely the right answer is graded (0 is right for a
        # vanishing chance), not how close a slip must come; applied to the targets, every
        # slip of a small answer (÷8, ÷24, ÷1024, ...) would match any small answer and
        # the first factor tried would take the name.
        rel = tol.rel if tol.rel > 0 or tol.abs == 0 else DEFAULT_SLIP_REL
        return lambda answer, target: abs(answer - target) <= rel * abs(target)
    return lambda answer, target: tol.score(answer, target) >= 1.0


def _matcher(part: Part, correct: float) -> Callable[[float, float], bool]:
    """near(answer, target) for the factor detector."""
    if part.kind == Kind.INTEGER:
        # Counts come from floor/ceil, so a slip shows up within one of the target; but a
        # factor must move the value by at least one to be told apart from rounding.
        def near_int(answer: float, target: float) -> bool:
            return abs(target - correct) >= 1 and abs(answer - target) < 1

        return near_int
    return _within_tolerance(part)


def _diagnose(
    part: Part, value: float, correct: float, own: list[Misconception], hints: FactorHints
) -> tuple[str, str] | None:
    integer = part.kind == Kind.INTEGER
    within = _within_tolerance(part)
    for m in own:
        target = m.value
        if isinstance(target, bool) or not isinstance(target, int | float):
            continue
        target = float(target)
        if integer and target.is_integer():
            hit = value == target
        elif integer:  # e.g. "forgot to round down": the learner types a rounded decimal
            hit = math.isclose(value, target, rel_tol=0.01)
        else:
            hit = within(value, target)
        if hit:
            return m.code, m.feedback

    if correct == 0 or value == 0 or not math.isfinite(value):
        return None
    near = _matcher(part, correct)
    percentish = _dimensionless(part.unit)
    for code, f, feedback in _factors(hints):
        if f == 1.0 or (code == "fraction-vs-percent" and not percentish):
            continue
        if near(value, correct * f) or near(value, correct / f):
            return code, feedback
    return None
