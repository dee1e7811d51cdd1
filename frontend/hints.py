"""What an answer box accepts, in words, derived from the part's unit.

The examples use fixed numbers, never the part's value, so a hint cannot leak an answer.
They come from the engine's own unit grammar (describe_kind, same_kind), so the hint and
the reader cannot disagree about which spellings are accepted.
"""

from __future__ import annotations

from functools import lru_cache

from problems.engine.units import describe_kind, parse_unit, same_kind

EXAMPLE = "80.5"

# The spelling a learner most often confuses with each unit, shown as a second example.
_NEIGHBOUR = {
    "GB": "GiB",
    "GiB": "GB",
    "MB": "MiB",
    "MiB": "MB",
    "KB": "KiB",
    "KiB": "KB",
    "TB": "TiB",
    "TiB": "TB",
    "GB/s": "Gb/s",
    "Gb/s": "GB/s",
    "TB/s": "GB/s",
    "us": "ms",
    "ms": "us",
    "s": "ms",
    "min": "s",
    "h": "min",
    "d": "h",
    "yr": "d",
    "tok/s": "ktok/s",
    "TFLOP/s": "PFLOP/s",
    "PFLOP/s": "TFLOP/s",
    "W": "kW",
    "kW": "W",
    "MW": "kW",
    "kWh": "MWh",
    "MWh": "kWh",
    "GPU-h": "GPU-d",
}


@lru_cache(maxsize=256)
def unit_hint(unit: str, kind: str = "numeric", choices: tuple[str, ...] = ()) -> str:
    """E.g. "a size in bytes: 80.5 (read as GB), 80.5 GB or 80.5 GiB"."""
    if kind == "choice":
        return "Choose one: " + ", ".join(choices) + "."
    if not unit:
        what = "A whole number" if kind == "integer" else "A plain number"
        return f"{what}, e.g. {'12' if kind == 'integer' else EXAMPLE}."
    if unit == "%":
        return f"A percentage: {EXAMPLE} or {EXAMPLE}%."
    if parse_unit(unit) is None:
        return f"A number in {unit}."
    examples = [f"{EXAMPLE} (read as {unit})", f"{EXAMPLE} {unit}"]
    neighbour = _NEIGHBOUR.get(unit)
    if neighbour and same_kind(neighbour, unit):
        examples.append(f"{EXAMPLE} {neighbour}")
    elif unit == "USD":
        examples.append(f"${EXAMPLE}")
    kind_words = describe_kind(unit)
    lead = "A whole number of" if kind == "integer" else kind_words[0].upper() + kind_words[1:]
    if kind == "integer":
        lead = f"{lead} {unit}"
    return f"{lead}: {', '.join(examples[:-1])} or {examples[-1]}."
