"""quantized-weights: the real bytes per parameter of a group-quantized model (the
4- or 8-bit codes plus one scale per group), its weights in GB or GiB, and the
memory-bound decode speed-up against 2-byte (BF16) weights.

Realism constraints the generator enforces (issue #11): catalog models only, named in
the statement; only the schemes deployments really use: GPTQ/AWQ-style INT4 with FP16
scales per group of 32, 64 or 128 weights, group-wise INT8 with FP16 scales per 64 or
128, OCP MXFP4 and MXFP8 (one 1-byte E8M0 scale per 32) and NVIDIA's NVFP4 (one 1-byte
FP8 scale per 16; its per-tensor FP32 scale is negligible and ignored). The statement
says that quantization is symmetric (no zero-points) and that every weight is quantized.
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field

from hardware_db import catalog
from problems.engine.numbers import UNIT_BYTES, params_count, sig, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates.memory._family import OTHER_UNIT, SizeUnit, model_name, unit_note

# (bits, group_size, scale_bytes, how the statement names the scheme)
SCHEMES = (
    (4, 128, 2, "INT4 weight-only quantization (GPTQ/AWQ style)"),
    (4, 128, 2, "INT4 weight-only quantization (GPTQ/AWQ style)"),
    (4, 64, 2, "INT4 weight-only quantization (GPTQ style)"),
    (4, 32, 2, "INT4 weight-only quantization (GPTQ style)"),
    (8, 128, 2, "group-wise INT8 weight-only quantization"),
    (8, 64, 2, "group-wise INT8 weight-only quantization"),
    (4, 32, 1, "MXFP4 (OCP microscaling, E8M0 scales)"),
    (4, 16, 1, "NVFP4 (FP8 E4M3 block scales)"),
    (8, 32, 1, "MXFP8 (OCP microscaling, E8M0 scales)"),
)
SCHEME_NAMES = {(b, g, s): name for b, g, s, name in SCHEMES}


class QuantizedWeightsParams(Params):
    n_params: float = Field(gt=0, le=1e14)
    bits: Literal[4, 8]
    group_size: int = Field(ge=1, le=1_000_000)
    scale_bytes: int = Field(ge=1, le=8)
    unit: SizeUnit


BPP = formula(r"b", lambda s: s.q / 8 + s.c / s.g, q="q", c="c", g="g")
WEIGHTS = formula(r"M_{\mathrm{weights}}", lambda s: s.N * s.b / s.u, N="N", b="b", u="u")
SPEEDUP = formula(r"S", lambda s: 2 / s.b, b="b")


def article(bits: int) -> str:
    return "an" if bits in (8, 11, 18) else "a"


def bytes_per_param(p: QuantizedWeightsParams) -> float:
    return p.bits / 8 + p.scale_bytes / p.group_size


@register
class QuantizedWeights(Template):
    slug = "quantized-weights"
    title = "Group-quantized weights: bytes, memory and decode speed-up"
    family = "memory"
    lessons = ("quantization", "gpu-memory-math", "what-a-model-is")
    skills = ("quantization-overhead", "weights-bytes", "memory-bound-decode", "units-gb-gib")
    difficulty = 2
    Params = QuantizedWeightsParams

    def generate(self, rng: random.Random) -> QuantizedWeightsParams:
        model = rng.choice(catalog.models())
        bits, group, scale, _ = rng.choice(SCHEMES)
        return QuantizedWeightsParams(
            n_params=float(model.total_params),
            bits=bits,
            group_size=group,
            scale_bytes=scale,
            unit=rng.choice(["GB", "GiB"]),
        )

    def solve(self, p: QuantizedWeightsParams) -> dict[str, Part]:
        b = bytes_per_param(p)
        return {
            "bytes_per_param": Part("bytes_per_param", b, "B", label="Bytes per parameter"),
            "weights": Part(
                "weights", p.n_params * b / UNIT_BYTES[p.unit], p.unit, label="Weights memory"
            ),
            "speedup": Part("speedup", 2 / b, "", label="Decode speed-up against BF16"),
        }

    def statement(self, p: QuantizedWeightsParams) -> str:
        scheme = SCHEME_NAMES.get((p.bits, p.group_size, p.scale_bytes))
        how = f" with {scheme}" if scheme else ""
        s = "s" if p.scale_bytes != 1 else ""
        return (
            f"You serve {model_name(p.n_params) or 'a model'} "
            f"({params_count(p.n_params)} parameters, $N = {tex(p.n_params, 12)}$){how}: "
            f"every weight is stored as {article(p.bits)} **{p.bits}-bit** code, and each group of "
            f"**{p.group_size}** consecutive weights shares one scale of "
            f"**{p.scale_bytes} byte{s}**. Quantization is symmetric (no zero-points), and "
            "every parameter is quantized this way (count nothing else).\n\n"
            "1. How many bytes does one parameter take on average, scales included, in B?\n"
            f"2. How much memory do the weights take, in {unit_note(p.unit)}?\n"
            "3. Decode at batch 1 is memory-bound: each step reads every weight once, so its "
            "time is proportional to the weight bytes. How many times faster is a decode "
            "step than with the same model in BF16 (2 bytes per parameter, no scales)? "
            "Give the ratio."
        )

    def solution(self, p: QuantizedWeightsParams) -> str:
        b = bytes_per_param(p)
        value = p.n_params * b / UNIT_BYTES[p.unit]
        unit_tex = "2^{30}" if p.unit == "GiB" else "10^{9}"
        return (
            f"{article(p.bits).capitalize()} {p.bits}-bit code is $q/8 = {sig(p.bits / 8)}$ "
            "bytes; the scale of "
            f"$c = {p.scale_bytes}$ byte{'' if p.scale_bytes == 1 else 's'} is shared by a group "
            f"of $g = {p.group_size}$ weights, so each carries "
            f"${sig(p.scale_bytes / p.group_size)}$ bytes of it:\n\n"
            + step(BPP, {"q": p.bits, "c": p.scale_bytes, "g": p.group_size}, b, "B")
            + f"\n\nThe weights are $N b = {tex(p.n_params * b, 12)}$ bytes; divide by "
            f"$u = {unit_tex}$, the bytes in one {p.unit}:\n\n"
            + step(WEIGHTS, {"N": p.n_params, "b": sig(b, 8), "u": unit_tex}, value, p.unit)
            + "\n\nA memory-bound step takes time in proportion to the bytes it reads, so the "
            "speed-up is the ratio of bytes per parameter:\n\n"
            + step(SPEEDUP, {"b": sig(b, 8)}, 2 / b)
            + f"\n\nThe scales cost {sig(100 * (p.scale_bytes / p.group_size) / b, 3)}% "
            "of the bytes, which is why the speed-up falls short of "
            f"{sig(16 / p.bits)}."
        )

    def misconceptions(self, p: QuantizedWeightsParams) -> list[Misconception]:
        b = bytes_per_param(p)
        bare = p.bits / 8
        u = UNIT_BYTES[p.unit]
        other = OTHER_UNIT[p.unit]
        ignored = (
            f"That leaves out the scales: each weight also carries {p.scale_bytes}/"
            f"{p.group_size} bytes of its group's scale, {sig(b)} bytes in all."
        )
        return [
            Misconception("scales-ignored", "bytes_per_param", bare, ignored),
            Misconception(
                "scale-per-weight",
                "bytes_per_param",
                bare + p.scale_bytes,
                f"That gives every weight its own {p.scale_bytes}-byte scale. One scale is "
                f"shared by a group of {p.group_size} weights: divide by the group size.",
            ),
            Misconception(
                "bits-vs-bytes",
                "bytes_per_param",
                p.bits + p.scale_bytes / p.group_size,
                f"That counts the {p.bits} bits as bytes. "
                f"{article(p.bits).capitalize()} {p.bits}-bit code is "
                f"{sig(bare)} byte(s): divide bits by 8.",
            ),
            Misconception("scales-ignored", "weights", p.n_params * bare / u, ignored),
            Misconception(
                "gb-vs-gib",
                "weights",
                p.n_params * b / UNIT_BYTES[other],
                f"That is the size in {other}. The question asks for {p.unit}: "
                "1 GB is 10^9 bytes, 1 GiB is 2^30 = 1,073,741,824 bytes.",
            ),
            Misconception("scales-ignored", "speedup", 2 / bare, ignored),
            Misconception(
                "fp32-baseline",
                "speedup",
                4 / b,
                "That compares against 4-byte FP32 weights. The baseline is BF16: 2 bytes "
                "per parameter.",
            ),
        ]
