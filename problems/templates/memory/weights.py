"""weights-memory: the bytes a model's weights take at a given precision, in GB or GiB.

Realism constraints the generator enforces (issue #11): catalog models only; FP32
weights only for models up to 100B parameters (nobody loads DeepSeek-V3 or Llama 3.1
405B in FP32; their checkpoints are BF16 or FP8).

Conventions examined: in two fifths of the variants (from a hash of the parameters) the
statement names the format by its width in bits ("INT4, a 4-bit format"), as model
cards and quantization tools do, and the learner converts bits to bytes; using the bits
as bytes (8x too much) is the named slip `bits-vs-bytes`.
"""

from __future__ import annotations

import random
import zlib
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


FP32_MAX_PARAMS = 100e9


def width_in_bits(p: WeightsParams) -> bool:
    """Two fifths of the statements give the format's width in bits, not bytes."""
    return zlib.crc32(f"{p.n_params}|{p.precision}|{p.unit}".encode()) % 5 < 2


WEIGHTS = formula(r"M_{\mathrm{weights}}", lambda s: s.N * s.b / s.u, N="N", b="b", u=r"u")


@register
class WeightsMemory(Template):
    slug = "weights-memory"
    version = 2  # 2: formats given by width in a third of statements (issue #11)
    title = "Memory for a model's weights"
    family = "memory"
    lessons = ("gpu-memory-math",)
    skills = ("weights-bytes", "units-gb-gib")
    difficulty = 1
    Params = WeightsParams

    def generate(self, rng: random.Random) -> WeightsParams:
        model = rng.choice(catalog.models())
        precisions = ["fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4"]
        if model.total_params > FP32_MAX_PARAMS:
            precisions.remove("fp32")
        return WeightsParams(
            n_params=float(model.total_params),
            precision=rng.choice(precisions),
            unit=rng.choice(["GB", "GiB"]),
        )

    def _bytes(self, p: WeightsParams) -> float:
        return p.n_params * BYTES_PER_ELEMENT[p.precision]

    def solve(self, p: WeightsParams) -> dict[str, Part]:
        value = self._bytes(p) / UNIT_BYTES[p.unit]
        return {"weights": Part("weights", value, p.unit, label="Weights memory")}

    def statement(self, p: WeightsParams) -> str:
        b = BYTES_PER_ELEMENT[p.precision]
        if width_in_bits(p):
            width = f"{'an' if b == 1 else 'a'} {sig(8 * b)}-bit format"
        else:
            width = f"{sig(b)} byte{'s' if b != 1 else ''} per parameter"
        return (
            f"{model_name(p.n_params) or 'A model'} has {params_count(p.n_params)} parameters "
            f"($N = {tex(p.n_params, 12)}$). You load its weights in "
            f"**{p.precision.upper()}**, {width} "
            "(ignore quantization scales and everything else: weights only).\n\n"
            f"How much memory do the weights take, in {unit_note(p.unit)}?"
        )

    def solution(self, p: WeightsParams) -> str:
        b = BYTES_PER_ELEMENT[p.precision]
        total = self._bytes(p)
        value = total / UNIT_BYTES[p.unit]
        unit_tex = "2^{30}" if p.unit == "GiB" else "10^{9}"
        bits = (
            f"{p.precision.upper()} is {sig(8 * b)} bits, and 8 bits make a byte. "
            if width_in_bits(p)
            else ""
        )
        return (
            f"{bits}Each parameter is stored in {p.precision.upper()}, so $b = {sig(b)}$ bytes. "
            f"The weights are $N b = {tex(total, 12)}$ bytes; divide by $u = {unit_tex}$, the "
            f"bytes in one {p.unit}:\n\n"
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
        bits = 8 * BYTES_PER_ELEMENT[p.precision]
        out.append(
            Misconception(
                "bits-vs-bytes",
                "weights",
                p.n_params * bits / UNIT_BYTES[p.unit],
                f"That uses {sig(bits)} bytes per parameter: {p.precision.upper()} is "
                f"{sig(bits)} bits, which is {sig(bits / 8)} byte(s). Divide bits by 8.",
            )
        )
        return out
