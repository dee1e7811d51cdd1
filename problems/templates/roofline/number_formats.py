"""number-formats: what a narrower number format buys on one GPU. A tensor of N values
(a model's weights) is held in a wide format and could be held in a narrower one that
the part's tensor cores compute in; the parts are the tensor's size in the narrow format
(GB) and how many times the wide format's peak dense throughput the narrow one's is, from the
catalog's datasheet figures (stated: the skill is reading and comparing them).

Bytes per value: TF32 is stored as FP32, 4 bytes (the tensor cores round its mantissa;
the memory holds 32 bits); BF16 and FP16 2; FP8 1; FP4 half a byte (two values a byte,
plus the small per-block scales that FP4 and MX formats carry, left out here and said).
Peak: each format's dense tensor throughput as the catalog records it (the datasheets'
dense figures, not the 2:4 sparse headline); a format the part does not compute in is
never offered (the A100 has no FP8, only Blackwell and the MI355X compute FP4).

Misconceptions: the format's bits read as bytes (bits-as-bytes), FP4 taken as a whole
byte (fp4-one-byte), the GiB taken for the GB (gib-for-gb), the throughput ratio turned
upside down (ratio-inverted), and no gain assumed from the narrow format
(same-peak-assumed).
"""

from __future__ import annotations

import random

from pydantic import Field, model_validator

from hardware_db import catalog
from problems.engine.numbers import BYTES_PER_ELEMENT, sig
from problems.engine.registry import register
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import PRECISION_LABEL, parts_separated, tex15

ORDER = ("tf32", "bf16", "fp8", "fp4")  # wide to narrow; FP16 runs at BF16's rate
BYTES = {"tf32": 4.0, "bf16": BYTES_PER_ELEMENT["bf16"], "fp8": 1.0, "fp4": 0.5}
BITS = {"tf32": 32, "bf16": 16, "fp8": 8, "fp4": 4}
PARTS = ("a100-sxm-80gb", "h100-sxm", "h200", "b200", "gb200", "l40s", "mi300x", "mi325x")
PARTS += ("mi355x",)
TENSORS = (  # (what, values)
    ("the weights of an 8-billion-parameter model", 8_030_000_000),
    ("the weights of a 70-billion-parameter model", 70_600_000_000),
    ("the weights of a 72-billion-parameter model", 72_700_000_000),
    ("one layer's MLP weights of Llama 3.1 405B (3 x 16,384 x 53,248)", 2_617_245_696),
    ("an embedding table of 128,256 tokens by 8,192", 1_050_673_152),
)


class FormatParams(Params):
    accelerator: str
    tensor: int = Field(ge=0, lt=len(TENSORS))
    wide: str
    narrow: str

    @model_validator(mode="after")
    def _formats(self) -> FormatParams:
        if self.accelerator not in PARTS:
            raise ValueError(f"one of {', '.join(PARTS)}")
        flops = catalog.accelerator(self.accelerator).dense_flops
        for f in (self.wide, self.narrow):
            if f not in ORDER or f not in flops:
                raise ValueError(f"{f}: not a format this part computes in")
        if ORDER.index(self.narrow) <= ORDER.index(self.wide):
            raise ValueError("the narrow format must be narrower than the wide one")
        return self


def _peak(p: FormatParams, fmt: str) -> float:
    return catalog.accelerator(p.accelerator).dense_flops[fmt] / 1e12


@register
class NumberFormats(Template):
    slug = "number-formats"
    title = "What a narrower number format buys: bytes and peak throughput"
    family = "roofline"
    lessons = ("inside-a-gpu",)
    skills = ("gpu-architecture", "number-formats")
    difficulty = 1
    Params = FormatParams
    version = 1

    def generate(self, rng: random.Random) -> FormatParams:
        for _ in range(10_000):
            acc = rng.choice(PARTS)
            flops = catalog.accelerator(acc).dense_flops
            have = [f for f in ORDER if f in flops]
            i, j = sorted(rng.sample(range(len(have)), 2))
            p = FormatParams(
                accelerator=acc, tensor=rng.randrange(len(TENSORS)), wide=have[i], narrow=have[j]
            )
            if parts_separated(self.solve(p), self.misconceptions(p)):
                return p
        raise RuntimeError("number-formats: no separated variant")  # pragma: no cover

    def solve(self, p: FormatParams) -> dict[str, Part]:
        n = TENSORS[p.tensor][1]
        return {
            "size": Part(
                "size", n * BYTES[p.narrow] / 1e9, "GB",
                label=f"Size in {PRECISION_LABEL[p.narrow]}",
            ),
            "speedup": Part(
                "speedup", _peak(p, p.narrow) / _peak(p, p.wide), "",
                label=f"Peak ratio, {PRECISION_LABEL[p.narrow]} over {PRECISION_LABEL[p.wide]}",
            ),
        }  # fmt: skip

    def statement(self, p: FormatParams) -> str:
        acc = catalog.accelerator(p.accelerator)
        what, n = TENSORS[p.tensor]
        wide, narrow = PRECISION_LABEL[p.wide], PRECISION_LABEL[p.narrow]
        held = "FP32 (TF32 on its tensor cores)" if p.wide == "tf32" else wide
        fp4 = " FP4 packs two values into a byte (leave out its small per-block scales)."
        peaks = ", ".join(
            f"{PRECISION_LABEL[f]} {sig(_peak(p, f), 6)} TFLOP/s"
            for f in ORDER
            if f in acc.dense_flops
        )
        return (
            f"A team holds {what} ($N = {tex15(n)}$ values) in {held} on the {acc.prose_name} "
            f"and considers {narrow}. The datasheet's dense tensor peaks are: {peaks}."
            f"{fp4 if p.narrow == 'fp4' else ''}\n\n"
            f"1. How large is the tensor in {narrow}, in GB?\n"
            f"2. How many times the {wide} peak is the part's dense {narrow} peak?"
        )

    def solution(self, p: FormatParams) -> str:
        _, n = TENSORS[p.tensor]
        wide, narrow = PRECISION_LABEL[p.wide], PRECISION_LABEL[p.narrow]
        size = n * BYTES[p.narrow] / 1e9
        ratio = _peak(p, p.narrow) / _peak(p, p.wide)
        return (
            f"{narrow} takes {sig(BYTES[p.narrow])} byte(s) per value ({BITS[p.narrow]} bits), "
            f"against {sig(BYTES[p.wide])} in {wide}: ${tex15(n)} \\times "
            f"{sig(BYTES[p.narrow])} = {sig(size * 1e9, 6)}$ bytes, **{sig(size, 4)} GB** "
            f"({sig(BYTES[p.wide] / BYTES[p.narrow])} times smaller).\n\n"
            f"The datasheet's dense {narrow} peak is **{sig(_peak(p, p.narrow), 6)} TFLOP/s**, "
            f"and {sig(_peak(p, p.narrow), 6)} / {sig(_peak(p, p.wide), 6)} = "
            f"**{sig(ratio, 4)}** times the {wide} peak. Halving the bits usually doubles the "
            "tensor cores' rate, but not always (check the datasheet), and a smaller format "
            "also halves the bytes every pass over the tensor moves, which is what a "
            "memory-bound decode step gains from first."
        )

    def misconceptions(self, p: FormatParams) -> list[Misconception]:
        n = TENSORS[p.tensor][1]
        size = n * BYTES[p.narrow] / 1e9
        out = [
            Misconception(
                "bits-as-bytes", "size", n * BITS[p.narrow] / 1e9,
                f"{PRECISION_LABEL[p.narrow]} is {BITS[p.narrow]} bits a value, "
                f"{sig(BYTES[p.narrow])} byte(s): divide the bits by 8.",
            ),
            Misconception(
                "gib-for-gb", "size", size * 1e9 / 2**30,
                "That is GiB (2^30 bytes); a GB is 10^9 bytes.",
            ),
            Misconception(
                "ratio-inverted", "speedup", _peak(p, p.wide) / _peak(p, p.narrow),
                "The narrow format runs faster: divide its peak by the wide format's.",
            ),
            Misconception(
                "same-peak-assumed", "speedup", 1.0,
                f"The tensor cores run {PRECISION_LABEL[p.narrow]} at its own rate: read its "
                "peak from the datasheet and divide by the wide format's.",
            ),
        ]  # fmt: skip
        if p.narrow == "fp4":
            out.append(
                Misconception(
                    "fp4-one-byte",
                    "size",
                    n / 1e9,
                    "FP4 packs two values into each byte: half a byte a value.",
                )  # fmt: skip
            )
        return out
