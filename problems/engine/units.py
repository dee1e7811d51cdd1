"""The one unit registry of the project, and fast conversions for grading.

Units are read with a strict grammar: unit names from the whitelist below, joined by
"/", "*", "·" or a space, each with an optional integer exponent "^N". Nothing a learner
types is ever handed to pint's expression parser: pint only sees unit names defined
here, and only the first time a unit string is seen. After that a conversion is a
cached (dimensionality, factor-to-base) lookup and a float multiply.

Decimal prefixes are powers of ten ("KB" with a capital K is 1e3 bytes, as is "kB");
binary ones are powers of two (KiB 2^10 ... PiB 2^50). Bits are "b" (Gb/s = 1e9 bit/s).
Spellings are case-sensitive on purpose: GB (gigabytes) and Gb (gigabits) differ by 8.
"""

from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pint

__all__ = [
    "DIMENSIONLESS",
    "UnitError",
    "UnitInfo",
    "convert",
    "describe_kind",
    "explain_unknown_unit",
    "get_registry",
    "known_spellings",
    "parse_unit",
    "same_kind",
    "unit_info",
]


class UnitError(ValueError):
    """An unknown unit, or a conversion between units of different kinds."""


@dataclass(frozen=True, slots=True)
class UnitInfo:
    """A parsed unit: its canonical spelling, dimensionality and factor to base units.

    Base units: byte, second, FLOP, token, GPU-hour, USD, watt. `dims` is a sorted tuple
    of (dimension, exponent), e.g. (("[information]", 1), ("[time]", -1)) for GB/s.
    """

    symbol: str
    dims: tuple[tuple[str, int], ...]
    factor: float


# --------------------------------------------------------------------------- registry

# Base dimensions, then every other unit as a multiple of them. Only these names (the
# left-hand sides) are ever looked up in pint.
_DEFINITIONS = (
    "B = [information]",
    "s = [time]",
    "FLOP = [compute]",
    "tok = [token]",
    "GPU_h = [gpu_time]",
    "USD = [currency]",
    "W = [power]",
    "L = [volume]",
    "percent = 0.01",
    # sizes: decimal, binary, bits
    "KB = 1e3 * B",
    "MB = 1e6 * B",
    "GB = 1e9 * B",
    "TB = 1e12 * B",
    "PB = 1e15 * B",
    "EB = 1e18 * B",
    "KiB = 1024 * B",
    "MiB = 1048576 * B",
    "GiB = 1073741824 * B",
    "TiB = 1099511627776 * B",
    "PiB = 1125899906842624 * B",
    "EiB = 1152921504606846976 * B",
    "b = 0.125 * B",
    "Kb = 1e3 * b",
    "Mb = 1e6 * b",
    "Gb = 1e9 * b",
    "Tb = 1e12 * b",
    "Pb = 1e15 * b",
    # time
    "ns = 1e-9 * s",
    "us = 1e-6 * s",
    "ms = 1e-3 * s",
    "min = 60 * s",
    "h = 3600 * s",
    "d = 86400 * s",
    "yr = 31536000 * s",  # 365 days: 8760 h, as the facility-power template uses
    # compute
    "MFLOP = 1e6 * FLOP",
    "GFLOP = 1e9 * FLOP",
    "TFLOP = 1e12 * FLOP",
    "PFLOP = 1e15 * FLOP",
    "EFLOP = 1e18 * FLOP",
    # tokens
    "ktok = 1e3 * tok",
    "Mtok = 1e6 * tok",
    # accelerator time
    "GPU_d = 24 * GPU_h",
    # power and energy
    "kW = 1e3 * W",
    "MW = 1e6 * W",
    "GW = 1e9 * W",
    "Wh = W * h",
    "kWh = 1e3 * Wh",
    "MWh = 1e6 * Wh",
    "GWh = 1e9 * Wh",
    "TWh = 1e12 * Wh",
    "J = W * s",
    "kJ = 1e3 * J",
    "MJ = 1e6 * J",
    "GJ = 1e9 * J",
    # heat: the International Table BTU (1 W = 3600 / 1055.05585262 BTU/h)
    "BTU = 1055.05585262 * J",
)


_PINT_LOCK = threading.RLock()
_REGISTRY: pint.UnitRegistry | None = None


def get_registry() -> pint.UnitRegistry:
    """The project's one pint UnitRegistry, built on first use (pint takes ~0.3 s to import).

    Built from an empty registry (filename=None), so none of pint's defaults can shadow
    ours: in pint's defaults "h" is Planck's constant and "b" a barn.
    """
    global _REGISTRY
    if _REGISTRY is None:
        with _PINT_LOCK:
            if _REGISTRY is None:
                import pint

                reg = pint.UnitRegistry(None, case_sensitive=True, cache_folder=None)
                for line in _DEFINITIONS:
                    reg.define(line)
                _REGISTRY = reg
    return _REGISTRY


def __getattr__(name: str) -> Any:
    if name == "ureg":  # `from problems.engine.units import ureg` builds it on demand
        return get_registry()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ------------------------------------------------------------------------- spellings

# spelling -> ((canonical symbol, pint name or None for a plain count, exponent), ...)
_Term = tuple[str, str | None, int]
_ATOMS: dict[str, tuple[_Term, ...]] = {}


def _add(symbol: str, pint_name: str | None, *spellings: str) -> None:
    for spelling in (symbol, *spellings):
        _ATOMS[spelling] = ((symbol, pint_name, 1),)


def _add_rate(spelling: str, symbol: str) -> None:
    """A one-word rate such as "GBps" or "TFLOPS": the unit per second."""
    _ATOMS[spelling] = (*_ATOMS[symbol], ("s", "s", -1))


_add("B", "B", "byte", "bytes", "Byte", "Bytes")
for _sym, _words in (
    ("KB", ("kB", "kilobyte", "kilobytes")),
    ("MB", ("megabyte", "megabytes")),
    ("GB", ("gigabyte", "gigabytes")),
    ("TB", ("terabyte", "terabytes")),
    ("PB", ("petabyte", "petabytes")),
    ("EB", ("exabyte", "exabytes")),
    ("KiB", ("kibibyte", "kibibytes")),
    ("MiB", ("mebibyte", "mebibytes")),
    ("GiB", ("gibibyte", "gibibytes")),
    ("TiB", ("tebibyte", "tebibytes")),
    ("PiB", ("pebibyte", "pebibytes")),
    ("EiB", ()),
    ("b", ("bit", "bits")),
    ("Kb", ("kb", "Kbit", "kbit", "kilobit", "kilobits")),
    ("Mb", ("Mbit", "megabit", "megabits")),
    ("Gb", ("Gbit", "gigabit", "gigabits")),
    ("Tb", ("Tbit", "terabit", "terabits")),
    ("Pb", ("Pbit",)),
    ("s", ("sec", "secs", "second", "seconds")),
    ("ns", ("nanosecond", "nanoseconds")),
    ("us", ("µs", "μs", "microsecond", "microseconds")),
    ("ms", ("msec", "millisecond", "milliseconds")),
    ("min", ("mins", "minute", "minutes")),
    ("h", ("hr", "hrs", "hour", "hours")),
    ("d", ("day", "days")),
    ("yr", ("year", "years")),
    ("FLOP", ()),
    ("MFLOP", ()),
    ("GFLOP", ()),
    ("TFLOP", ()),
    ("PFLOP", ()),
    ("EFLOP", ()),
    ("tok", ("token", "tokens")),
    ("ktok", ()),
    ("Mtok", ()),
    ("USD", ("$", "usd", "dollar", "dollars")),
    ("W", ("watt", "watts")),
    ("kW", ("kilowatt", "kilowatts")),
    ("MW", ("megawatt", "megawatts")),
    ("GW", ("gigawatt", "gigawatts")),
    ("Wh", ()),
    ("kWh", ()),
    ("MWh", ()),
    ("GWh", ()),
    ("TWh", ()),
    ("J", ("joule", "joules")),
    ("kJ", ()),
    ("MJ", ()),
    ("GJ", ()),
    ("BTU", ("Btu", "btu")),
    ("L", ("litre", "litres", "liter", "liters")),
):
    _add(_sym, _sym, *_words)
_add("GPU-h", "GPU_h", "GPUh", "GPU-hr", "GPU-hrs", "GPU-hour", "GPU-hours")
_add("GPU-d", "GPU_d", "GPU-day", "GPU-days")

# Plain counts: dimensionless, factor 1, so "8 GPUs" answers a count and "40 GB/GPU" a size.
for _sym, _words in (
    ("GPU", ("GPUs", "gpu", "gpus")),
    ("server", ("servers",)),
    ("node", ("nodes",)),
    ("replica", ("replicas",)),
    ("rack", ("racks",)),
    ("seq", ("seqs", "sequence", "sequences")),
    ("request", ("requests", "req", "reqs")),
    ("step", ("steps",)),
    ("param", ("params", "parameter", "parameters")),
    ("image", ("images", "img", "imgs")),
    ("sample", ("samples",)),
):
    _add(_sym, None, *_words)

for _spelling, _sym in (
    ("Bps", "B"),
    ("KBps", "KB"),
    ("kBps", "KB"),
    ("MBps", "MB"),
    ("GBps", "GB"),
    ("TBps", "TB"),
    ("PBps", "PB"),
    ("bps", "b"),
    ("Kbps", "Kb"),
    ("kbps", "Kb"),
    ("Mbps", "Mb"),
    ("Gbps", "Gb"),
    ("Tbps", "Tb"),
    ("Pbps", "Pb"),
    ("FLOPS", "FLOP"),
    ("MFLOPS", "MFLOP"),
    ("GFLOPS", "GFLOP"),
    ("TFLOPS", "TFLOP"),
    ("PFLOPS", "PFLOP"),
    ("EFLOPS", "EFLOP"),
):
    _add_rate(_spelling, _sym)

# Whole-unit-only spellings (not allowed inside a compound unit).
_WHOLE: dict[str, tuple[str, str | None]] = {
    "%": ("%", "percent"),
    "percent": ("%", "percent"),
    "x": ("x", None),
    "×": ("x", None),
}

# Spellings refused with an explanation rather than guessed at.
_AMBIGUOUS = {
    f"{p}{f}": p
    for p in ("", "M", "G", "T", "P", "E")
    for f in ("FLOPs", "flops", "Flops", "flop/s")
}

# A GPU count next to an hour or a day ("GPU hours", "GPU·h") means accelerator time.
_GPU_TIME = re.compile(r"\bGPUs?[ ·⋅*-]?(hours?|hrs?|h|days?|d)\b")
_TOKEN = re.compile(r"([^\s/*·⋅^]+)(?:\^(-?[1-9]))?")
_SEPARATOR = re.compile(r"\s*([/*·⋅])\s*|\s+")
_MAX_UNIT_CHARS = 40

DIMENSIONLESS = UnitInfo("", (), 1.0)


def known_spellings() -> tuple[str, ...]:
    """Every unit spelling the grammar accepts as a word, sorted."""
    return tuple(sorted({*_ATOMS, *_WHOLE}))


# --------------------------------------------------------------------------- parsing


def parse_unit(text: str) -> UnitInfo | None:
    """The unit `text` names, or None when it is not a unit this grammar accepts.

    Never raises and never evaluates anything: `text` is tokenised here against the
    whitelist; pint only ever sees names from `_DEFINITIONS`.
    """
    if not isinstance(text, str):
        return None
    return _parse_unit(text)


@lru_cache(maxsize=4096)
def _parse_unit(text: str) -> UnitInfo | None:
    s = text.strip()
    if len(s) > _MAX_UNIT_CHARS:
        return None
    if s == "":
        return DIMENSIONLESS
    whole = _WHOLE.get(s)
    if whole is not None:
        return _resolve(((whole[0], whole[1], 1),))
    terms = _tokenise(_GPU_TIME.sub(_gpu_time_word, s))
    if terms is None:
        return None
    return _resolve(terms)


def _gpu_time_word(m: re.Match[str]) -> str:
    return "GPU-d" if m.group(1).startswith("d") else "GPU-h"


def _tokenise(s: str) -> list[_Term] | None:
    terms: list[_Term] = []
    pos, sign = 0, 1
    while True:
        m = _TOKEN.match(s, pos)
        if m is None:
            return None
        atom = _ATOMS.get(m.group(1))
        if atom is None:
            return None
        exponent = sign * int(m.group(2) or 1)
        terms.extend((sym, name, e * exponent) for sym, name, e in atom)
        pos = m.end()
        if pos == len(s):
            return terms
        sep = _SEPARATOR.match(s, pos)
        if sep is None or sep.end() == len(s):
            return None  # e.g. "GB^x", or a trailing "/"
        sign = -1 if sep.group(1) == "/" else 1
        pos = sep.end()


def _resolve(terms: tuple[_Term, ...] | list[_Term]) -> UnitInfo | None:
    merged: dict[str, list] = {}
    for sym, name, e in terms:
        merged.setdefault(sym, [name, 0])[1] += e
    parts = [(sym, name, e) for sym, (name, e) in merged.items() if e != 0]
    try:
        ureg = get_registry()
        with _PINT_LOCK:
            q = ureg.Quantity(1.0)
            for _sym, name, e in parts:
                if name is not None:
                    q = q * ureg.Quantity(1.0, ureg.Unit(name)) ** e
            base = q.to_base_units()
            factor = float(base.magnitude)
            dims = tuple(sorted((k, int(v)) for k, v in base.dimensionality.items() if v))
    except Exception:  # a definition bug, never learner input: refuse rather than raise
        return None
    if not (math.isfinite(factor) and factor > 0):
        return None
    return UnitInfo(_symbol(parts), dims, factor)


def _symbol(parts: list[tuple[str, str | None, int]]) -> str:
    def fmt(sym: str, e: int) -> str:
        return sym if e == 1 else f"{sym}^{e}"

    num = [fmt(sym, e) for sym, _, e in parts if e > 0]
    den = [fmt(sym, -e) for sym, _, e in parts if e < 0]
    out = "·".join(num)
    if den:
        # "tok/s/kW", not "tok/(s·kW)": the symbol is read back by this grammar (an
        # answer's unit is converted from it), and the grammar has no parentheses.
        out = (out or "1") + "".join("/" + d for d in den)
    return out


_CASEFOLDED: dict[str, list[str]] = {}
for _spelling, _atom in _ATOMS.items():
    _canon = _spelling if len(_atom) > 1 else _atom[0][0]
    _bucket = _CASEFOLDED.setdefault(_spelling.casefold(), [])
    if _canon not in _bucket:
        _bucket.append(_canon)


def explain_unknown_unit(text: str) -> str:
    """A short reason why `text` is not an accepted unit, for error messages."""
    if not isinstance(text, str):
        return "Not a unit"
    s = text.strip()
    if len(s) > _MAX_UNIT_CHARS:
        return "That unit is too long"
    for tok in re.split(r"[\s/*·⋅]+", s):
        word = tok.split("^", 1)[0]
        if not word or word in _ATOMS or word in _WHOLE:
            continue
        if word in _AMBIGUOUS:
            p = _AMBIGUOUS[word]
            return (
                f"'{word}' is ambiguous: write {p}FLOP for an amount of work "
                f"or {p}FLOP/s (or {p}FLOPS) for a rate"
            )
        guesses = [g for g in _CASEFOLDED.get(word.casefold(), []) if g != word]
        if guesses:
            return (
                f"Unknown unit '{word}': units are case-sensitive, "
                f"did you mean {' or '.join(guesses[:3])}?"
            )
        return f"Unknown unit '{word}'"
    return f"Unknown unit '{s}'"


# ------------------------------------------------------------------------ conversion


def unit_info(unit: str) -> UnitInfo:
    """Like parse_unit, but raises UnitError for a unit it does not know."""
    info = parse_unit(unit)
    if info is None:
        raise UnitError(f"Unknown unit {unit!r}")
    return info


@lru_cache(maxsize=4096)
def _factors(from_unit: str, to_unit: str) -> tuple[float, float]:
    a, b = unit_info(from_unit), unit_info(to_unit)
    if a.dims != b.dims:
        raise UnitError(
            f"Cannot convert {from_unit or 'a plain number'} ({_kind(a)}) "
            f"to {to_unit or 'a plain number'} ({_kind(b)})"
        )
    return a.factor, b.factor


def convert(value: float, from_unit: str, to_unit: str) -> float:
    """`value` in `from_unit`, expressed in `to_unit`.

    Raises UnitError (a ValueError) for an unknown unit or units of different kinds.
    """
    f_from, f_to = _factors(from_unit, to_unit)
    if f_from == f_to:
        return float(value)
    out = value * f_from / f_to
    if not math.isfinite(out):
        out = value * (f_from / f_to)
    return out


def same_kind(u1: str, u2: str) -> bool:
    """True when both are known units of the same dimensionality (so convertible)."""
    a, b = parse_unit(u1), parse_unit(u2)
    return a is not None and b is not None and a.dims == b.dims


_KINDS: dict[tuple[tuple[str, int], ...], str] = {
    (): "a plain number (a count or ratio)",
    (("[information]", 1),): "a size in bytes",
    (("[information]", 1), ("[time]", -1)): "a rate in bytes per second",
    (("[time]", 1),): "a time",
    (("[time]", -1),): "a rate per unit of time",
    (("[compute]", 1),): "an amount of compute (FLOP)",
    (("[compute]", 1), ("[time]", -1)): "a compute rate",
    (("[compute]", 1), ("[information]", -1)): "an arithmetic intensity (FLOP per byte)",
    (("[token]", 1),): "a number of tokens",
    (("[time]", -1), ("[token]", 1)): "a token rate",
    (("[time]", 1), ("[token]", -1)): "a time per token",
    (("[information]", 1), ("[token]", -1)): "a size per token",
    (("[gpu_time]", 1),): "GPU time",
    (("[currency]", 1),): "money",
    (("[currency]", 1), ("[gpu_time]", -1)): "a price per GPU-hour",
    (("[currency]", 1), ("[power]", -1), ("[time]", -1)): "a price per unit of energy",
    (("[currency]", 1), ("[time]", -1)): "money per unit of time",
    (("[currency]", 1), ("[token]", -1)): "a price per token",
    (("[power]", 1),): "power",
    (("[power]", 1), ("[time]", 1)): "energy",
    (("[volume]", 1),): "a volume",
    (("[time]", -1), ("[volume]", 1)): "a flow rate (volume per unit of time)",
}


def _kind(info: UnitInfo) -> str:
    if not info.dims:
        if info.symbol == "%":
            return "a percentage"
        if info.symbol == "x":
            return "a ratio"
    kind = _KINDS.get(info.dims)
    if kind is None:
        return f"a quantity in {info.symbol}" if info.symbol else "a plain number"
    return kind


def describe_kind(unit: str) -> str:
    """What kind of quantity `unit` measures, in words: "a size in bytes", "a time"..."""
    info = parse_unit(unit)
    if info is None:
        return "an unknown unit"
    return _kind(info)
