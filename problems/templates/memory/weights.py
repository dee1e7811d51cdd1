"""weights-memory: the bytes a model's weights take at a given precision, in GB or GiB."""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field

from hardware_db import catalog
from problems.engine.numbers import BYTES_PER_ELEMENT, UNIT_BYTES, params_count, sig, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates.memory._family import (
    OTHER_UNIT,
    SizeUnit,
    model_name,
    unit_note,
)

Precision = Literal["fp32", "fp16", "bf16", "fp8", "int8", "int4", "fp4"]


class WeightsParams(Params):
    n_params: float = Field(gt=0, le=1e14)
    precision: Precision
    unit: SizeUnit


WEIGHTS = formula(r"M_{\mathrm{weights}}", lambda s: s.N * s.b / s.u, N="N", b="b", u=r"u")


@register
class WeightsMemory(Template):
    slug = "weights-memory"
    title = "Memory for a model's weights"
    family = "memory"
    lessons = ("gpu-memory-math",)
    skills = ("weights-bytes", "units-gb-gib")
    difficulty = 1
    Params = WeightsParams

    def generate(self, rng: random.Random) -> WeightsParams:
        model = rng.choice(catalog.models())
        return WeightsParams(
            n_params=float(model.total_params),
            precision=rng.choice(["fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"]),
            unit=rng.choice(["GB", "GiB"]),
        )

    def _bytes(self, p: WeightsParams) -> float:
        return p.n_params * BYTES_PER_ELEMENT[p.precision]

    def solve(self, p: WeightsParams) -> dict[str, Part]:
        value = self._bytes(p) / UNIT_BYTES[p.unit]
        return {"weights": Part("weights", value, p.unit, label="Weights memory")}

    def statement(self, p: WeightsParams) -> str:
        b = BYTES_PER_ELEMENT[p.precision]
        return (
            f"{model_name(p.n_params) or 'A model'} has {params_count(p.n_params)} parameters "
            f"($N = {tex(p.n_params, 12)}$). You load its weights in "
            f"**{p.precision.upper()}**, {sig(b)} byte{'s' if b != 1 else ''} per parameter "
            "(ignore quantization scales and everything else: weights only).\n\n"
            f"How much memory do the weights take, in {unit_note(p.unit)}?"
        )

    def solution(self, p: WeightsParams) -> str:
        b = BYTES_PER_ELEMENT[p.precision]
        total = self._bytes(p)
        value = total / UNIT_BYTES[p.unit]
        unit_tex = "2^{30}" if p.unit == "GiB" else "10^{9}"
        return (
            f"Each parameter is stored in {p.precision.upper()}, so $b = {sig(b)}$ bytes. "
            f"The weights are $N b = {tex(total, 12)}$ bytes; divide by the bytes in one "
            f"{p.unit}:\n\n"
            + step(WEIGHTS, {"N": p.n_params, "b": b, "u": unit_tex}, value, p.unit)
            + f"\n\nThe same bytes are {sig(total / UNIT_BYTES[OTHER_UNIT[p.unit]], 5)} "
            f"{OTHER_UNIT[p.unit]}: the two units differ by 7.4% at this scale."
        )

    def misconceptions(self, p: WeightsParams) -> list[Misconception]:
        total = self._bytes(p)
        other = OTHER_UNIT[p.unit]
        out = [
            Misconception(
                "gb-vs-gib",
                "weights",
                total / UNIT_BYTES[other],
                f"That is the size in {other}. The question asks for {p.unit}: "
                "1 GB is 10^9 bytes, 1 GiB is 2^30 = 1,073,741,824 bytes.",
            )
        ]
        wrong_b = 2 if BYTES_PER_ELEMENT[p.precision] != 2 else 4
        out.append(
            Misconception(
                "wrong-bytes-per-param",
                "weights",
                p.n_params * wrong_b / UNIT_BYTES[p.unit],
                f"That uses {wrong_b} bytes per parameter. {p.precision.upper()} stores "
                f"{sig(BYTES_PER_ELEMENT[p.precision])} byte(s) per parameter.",
            )
        )
        return out
