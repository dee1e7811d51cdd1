"""gb-gib: convert a size between decimal and binary byte units; half the variants
start from a figure in the catalog (a datasheet capacity, what the driver reports,
a model's weights or KV cache per token).

Realism: catalog figures as sold (the label's GB), as the driver reports them (MiB), a
model's BF16 weights and KV bytes per token. Discrimination: a slip whose value repeats
an earlier one (to or from plain bytes, stepping by the wrong factor is a GB/GiB
reading) is named once, by the more specific code.
"""

from __future__ import annotations

import math
import random
from typing import Literal

from pydantic import Field

from hardware_db import catalog
from problems.engine.numbers import UNIT_BYTES, sig, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template

ByteUnit = Literal["B", "KB", "MB", "GB", "TB", "PB", "KiB", "MiB", "GiB", "TiB", "PiB"]

# The decimal unit a binary one is mistaken for, and back.
COUNTERPART = {
    "B": "B",
    "KB": "KiB",
    "MB": "MiB",
    "GB": "GiB",
    "TB": "TiB",
    "PB": "PiB",
    "KiB": "KB",
    "MiB": "MB",
    "GiB": "GB",
    "TiB": "TB",
    "PiB": "PB",
}
UNIT_TEX = {
    "B": "1",
    "KB": "10^{3}",
    "MB": "10^{6}",
    "GB": "10^{9}",
    "TB": "10^{12}",
    "PB": "10^{15}",
    "KiB": "2^{10}",
    "MiB": "2^{20}",
    "GiB": "2^{30}",
    "TiB": "2^{40}",
    "PiB": "2^{50}",
}
# Units a generated question converts to (PB/PiB are accepted but not drawn).
_DRAWN_UNITS = ("B", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB")
_PLAIN_VALUES = (
    0.5, 1, 1.5, 2, 4, 8, 12, 16, 24, 32, 40, 48, 64, 80, 96, 128, 141, 180, 192, 256, 288,
    512, 640, 1000, 1024, 1536, 4096,
)  # fmt: skip


class ConvertParams(Params):
    value: float = Field(gt=0, le=1e24)
    from_unit: ByteUnit
    to_unit: ByteUnit


CONVERT = formula(
    r"x_{\mathrm{to}}",
    lambda s: s.x * s.f / s.t,
    x="x",
    f=r"u_{\mathrm{from}}",
    t=r"u_{\mathrm{to}}",
)


def _convert(value: float, from_unit: str, to_unit: str) -> float:
    return value * UNIT_BYTES[from_unit] / UNIT_BYTES[to_unit]


def _kind(unit: str) -> str:
    if unit == "B":
        return "bytes"
    return "binary" if "i" in unit else "decimal"


def _label_number(label: str) -> float | None:
    head = label.split()[0] if label else ""
    try:
        return float(head)
    except ValueError:
        return None


def _contexts() -> list[tuple[float, str, tuple[str, ...], str]]:
    """(value, from_unit, target units, sentence) for figures taken from the catalog."""
    out: list[tuple[float, str, tuple[str, ...], str]] = []
    for acc in catalog.accelerators():
        number = _label_number(acc.memory_label)
        unit = acc.memory_label.split()[1] if len(acc.memory_label.split()) > 1 else ""
        if number is not None and unit == "GB":
            out.append(
                (
                    number,
                    "GB",
                    ("GiB", "MiB", "B"),
                    f"The {acc.prose_name} is sold with {acc.memory_label}; take that "
                    "GB literally, as $10^{9}$ bytes.",
                )
            )
        reported = acc.memory_reported_bytes
        if reported and reported % 2**20 == 0:
            out.append(
                (
                    float(reported // 2**20),
                    "MiB",
                    ("GB", "GiB"),
                    f"The driver reports a total memory of {sig(reported // 2**20)} MiB for "
                    f"the {acc.prose_name}.",
                )
            )
    for model in catalog.models():
        gb = round(model.total_params * 2 / 1e9, 1)
        out.append(
            (
                gb,
                "GB",
                ("GiB", "TiB", "MiB"),
                f"{model.name}'s weights take about {sig(gb)} GB in BF16.",
            )
        )
        kib = model.kv_bytes_per_token(2) / 1024
        out.append(
            (
                kib,
                "KiB",
                ("KB", "MB", "MiB"),
                f"{model.name} caches {sig(kib)} KiB of keys and values per token in BF16.",
            )
        )
    return out


def _context_for(value: float, from_unit: str) -> str:
    for v, unit, _, sentence in _contexts():
        if unit == from_unit and v == value:
            return sentence + " "
    return ""


@register
class GbGib(Template):
    slug = "gb-gib"
    title = "Decimal and binary byte units"
    family = "units"
    lessons = ("gpu-memory-math", "storage-data-pipelines")
    skills = ("units-gb-gib",)
    difficulty = 1
    version = 2
    Params = ConvertParams

    def generate(self, rng: random.Random) -> ConvertParams:
        if rng.random() < 0.5:
            value, from_unit, targets, _ = rng.choice(_contexts())
            return ConvertParams(value=value, from_unit=from_unit, to_unit=rng.choice(targets))
        while True:
            value = float(rng.choice(_PLAIN_VALUES))
            from_unit, to_unit = rng.sample(_DRAWN_UNITS, 2)
            if _kind(from_unit) == _kind(to_unit) == "decimal":
                continue  # decimal to decimal is only a shift of the point
            if 1e-4 <= _convert(value, from_unit, to_unit) <= 1e10:
                return ConvertParams(value=value, from_unit=from_unit, to_unit=to_unit)

    def solve(self, p: ConvertParams) -> dict[str, Part]:
        return {
            "converted": Part(
                "converted",
                _convert(p.value, p.from_unit, p.to_unit),
                p.to_unit,
                label=f"Size in {p.to_unit}",
            )
        }

    def statement(self, p: ConvertParams) -> str:
        peta = {p.from_unit, p.to_unit} & {"PB", "PiB"}
        peta_dec = ", 1 PB = $10^{15}$ B" if peta else ""
        peta_bin = ", 1 PiB = $2^{50}$ B" if peta else ""
        return (
            f"{_context_for(p.value, p.from_unit)}Convert "
            f"${tex(p.value, 15)}\\ \\mathrm{{{p.from_unit}}}$ to **{p.to_unit}**.\n\n"
            "Decimal units are powers of ten (1 KB = $10^{3}$ B, 1 MB = $10^{6}$ B, "
            f"1 GB = $10^{{9}}$ B, 1 TB = $10^{{12}}$ B{peta_dec}); binary units are powers "
            "of two (1 KiB = $2^{10}$ B, 1 MiB = $2^{20}$ B, 1 GiB = $2^{30}$ B, "
            f"1 TiB = $2^{{40}}$ B{peta_bin}). Give the answer in {p.to_unit}."
        )

    def solution(self, p: ConvertParams) -> str:
        value = _convert(p.value, p.from_unit, p.to_unit)
        total = p.value * UNIT_BYTES[p.from_unit]
        return (
            f"Go through bytes: $x = {tex(p.value, 15)}$ {p.from_unit} of "
            f"$u_{{\\mathrm{{from}}}} = {UNIT_TEX[p.from_unit]}$ bytes each is "
            f"${tex(p.value, 15)} \\times {UNIT_TEX[p.from_unit]} = {tex(total, 15)}$ B. "
            f"Then divide by $u_{{\\mathrm{{to}}}} = {UNIT_TEX[p.to_unit]}$, the bytes in one "
            f"{p.to_unit}:\n\n"
            + step(
                CONVERT,
                {"x": p.value, "f": UNIT_TEX[p.from_unit], "t": UNIT_TEX[p.to_unit]},
                value,
                p.to_unit,
            )
        )

    def misconceptions(self, p: ConvertParams) -> list[Misconception]:
        src, dst = COUNTERPART[p.from_unit], COUNTERPART[p.to_unit]
        slips = [
            Misconception(
                "gb-vs-gib",
                "converted",
                _convert(p.value, src, p.to_unit),
                f"That reads {p.from_unit} as {src}. 1 {p.from_unit} is "
                f"{UNIT_TEX[p.from_unit]} bytes, 1 {src} is {UNIT_TEX[src]}.",
            ),
            Misconception(
                "gb-vs-gib",
                "converted",
                _convert(p.value, p.from_unit, dst),
                f"That is the size in {dst}, not {p.to_unit}. 1 {p.to_unit} is "
                f"{UNIT_TEX[p.to_unit]} bytes, 1 {dst} is {UNIT_TEX[dst]}.",
            ),
            Misconception(
                "unit-scale",
                "converted",
                _convert(p.value, src, dst),
                "That steps between units by the wrong factor: decimal units step by 1000, "
                "binary units by 1024.",
            ),
            Misconception(
                "unit-scale",
                "converted",
                p.value * UNIT_BYTES[p.to_unit] / UNIT_BYTES[p.from_unit],
                "That converts the wrong way round. Going to a larger unit gives a smaller "
                "number: multiply by the bytes per source unit, divide by the bytes per "
                "target unit.",
            ),
        ]
        # To or from plain bytes the wrong-factor slip is one of the GB/GiB readings (B has
        # no binary counterpart); keep the first, more specific name for a value.
        kept: list[Misconception] = []
        for m in slips:
            if not any(math.isclose(m.value, k.value, rel_tol=1e-6) for k in kept):
                kept.append(m)
        return kept
