"""decode-tpot-floor: the memory-bandwidth floor on time per output token at batch 1,
and the matching ceiling on decode speed.

Realism: a dense catalog model on a catalog part (any part may serve: decode is
inference), at a weight precision the part runs (FP8/FP4 only where it publishes a peak
for them), on the smallest of 1, 2, 4 or 8 devices that holds the weights with 20% to
spare (sometimes doubled), with tensor parallelism. The devices are called GPUs only
when they are GPUs (NVIDIA, AMD; not the two-GCD MI250X package); TPU chips,
Trainium/Inferentia chips and Gaudi or MI250X accelerators otherwise. Discrimination:
forgetting to split the weights over the devices is named (per-gpu-vs-total), unless its
value coincides with the wrong bytes-per-parameter slip; with 8 devices it is what an 8x
slip (bits for bytes) looks like, and the learner is told the more specific slip.
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field

from hardware_db import catalog
from problems.engine.numbers import BYTES_PER_ELEMENT, params_count, sig, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import FactorHints, Misconception, Params, Part, Template
from problems.templates._common import (
    accelerator_names,
    bw_tbps_of,
    dense_models,
    matching_accelerators,
    model_with_params,
)
from problems.templates.serving import _system as serving_system
from problems.templates.serving._family import (
    TPOT_ONE_SEQUENCE,
    device_noun,
    gpu_count,
    per_param,
    read_rate_sentence,
    weight_dtypes,
)

Precision = Literal["fp32", "fp16", "bf16", "fp8", "int8", "int4", "fp4"]


def _bytes_phrase(dtype: str) -> str:
    b = BYTES_PER_ELEMENT[dtype]
    unit = "byte" if b == 1 else "bytes"
    return f"**{dtype.upper()}**, {sig(b)} {unit} per parameter"


class DecodeParams(Params):
    n_params: float = Field(gt=0, le=1e14)
    weight_dtype: Precision
    mem_bw_tbps: float = Field(gt=0, le=1e4)
    n_gpus: int = Field(ge=1, le=4096)


TPOT = formula(
    r"t_{\mathrm{token}}",
    lambda s: s.N * s.b / (s.n * s.B),
    N="N",
    b="b",
    n="n",
    B=r"B_{\mathrm{mem}}",
)


def _decode_seconds(p: DecodeParams) -> float:
    return p.n_params * BYTES_PER_ELEMENT[p.weight_dtype] / (p.n_gpus * p.mem_bw_tbps * 1e12)


@register
class DecodeTpotFloor(Template):
    slug = "decode-tpot-floor"
    title = "The memory-bandwidth floor on time per output token"
    family = "serving"
    lessons = (
        "prefill-decode-and-the-cost-of-a-token",
        "llm-inference-at-scale",
        "quantization",
        "how-an-llm-writes-text",
    )
    skills = ("decode-bandwidth-bound", "tpot", "weights-bytes")
    difficulty = 2
    version = 2
    Params = DecodeParams
    feasibility = serving_system.DECODE

    def generate(self, rng: random.Random) -> DecodeParams:
        dense = dense_models()
        accs = [a for a in catalog.accelerators() if a.mem_bw_bytes_per_s > 0]
        while True:
            model = rng.choice(dense)
            acc = rng.choice(accs)
            dtype = rng.choice(weight_dtypes(acc))
            n = gpu_count(rng, model.total_params * BYTES_PER_ELEMENT[dtype], acc)
            if n is None:
                continue
            return DecodeParams(
                n_params=float(model.total_params),
                weight_dtype=dtype,
                mem_bw_tbps=bw_tbps_of(acc),
                n_gpus=n,
            )

    def solve(self, p: DecodeParams) -> dict[str, Part]:
        seconds = _decode_seconds(p)
        return {
            "tpot": Part("tpot", seconds * 1e3, "ms", label="Time per output token (floor)"),
            "tokens_per_s": Part(
                "tokens_per_s", 1 / seconds, "tok/s", label="Tokens per second (ceiling)"
            ),
        }

    def statement(self, p: DecodeParams) -> str:
        named = model_with_params(p.n_params, among=dense_models())
        size = f"{params_count(p.n_params)} parameters ($N = {tex(p.n_params, 15)}$)"
        model = (
            f"{named.name}, a dense model with {size}," if named else f"A dense model with {size}"
        )
        hits = matching_accelerators(mem_bw_tbps=p.mem_bw_tbps)
        which = f" ({accelerator_names(hits)})" if hits else ""
        accs = [a for a, _ in hits]
        if p.n_gpus == 1:
            hardware = (
                f"It runs on a single {device_noun(accs)}{which}, which reads its HBM at "
                f"{sig(p.mem_bw_tbps, 12)} TB/s."
            )
        else:
            nouns = device_noun(accs, p.n_gpus)
            hardware = (
                f"It runs on {p.n_gpus} {nouns}{which} with tensor parallelism; each reads "
                f"its HBM at {sig(p.mem_bw_tbps, 12)} TB/s, and the {nouns} read their shares "
                "of the weights in parallel."
            )
        return (
            f"{model} serves one sequence at a time (batch size 1) with its weights in "
            f"{_bytes_phrase(p.weight_dtype)} (ignore quantization scales). {hardware}\n\n"
            "Every decode step must stream all the weights from HBM once. Ignore KV-cache "
            f"reads, compute and communication. What is the floor on the {TPOT_ONE_SEQUENCE}, "
            "in ms, and the matching ceiling on this sequence's decode speed, in tok/s?"
        )

    def solution(self, p: DecodeParams) -> str:
        b = BYTES_PER_ELEMENT[p.weight_dtype]
        seconds = _decode_seconds(p)
        return (
            f"Each token reads $N b = {tex(p.n_params * b, 12)}$ bytes of weights at "
            + per_param(b)
            + ", "
            + read_rate_sentence(p.n_gpus, self._noun(p), p.mem_bw_tbps)
            + ":\n\n"
            + step(
                TPOT,
                {
                    "N": tex(p.n_params, 15),
                    "b": b,
                    "n": p.n_gpus,
                    "B": f"{tex(p.mem_bw_tbps, 12)} \\times 10^{{12}}",
                },
                seconds,
                "s",
            )
            + f"\n\nThat is **{sig(seconds * 1e3, 6)} ms** per token, so at most "
            f"$1 / ({tex(seconds)}\\ \\mathrm{{s}})$ = **{sig(1 / seconds, 6)} tok/s**. "
            "Real decoding is "
            "slower: it also reads the KV cache and never reaches the full bandwidth."
        )

    def misconceptions(self, p: DecodeParams) -> list[Misconception]:
        b = BYTES_PER_ELEMENT[p.weight_dtype]
        seconds = _decode_seconds(p)
        wrong_b = 2 if b != 2 else 1
        wrong = seconds * wrong_b / b
        out = [
            Misconception(
                "wrong-bytes-per-param",
                "tpot",
                wrong * 1e3,
                f"That assumes {wrong_b} byte(s) per parameter. {p.weight_dtype.upper()} "
                f"weights take {sig(b)} byte(s) each, and the bytes read set the floor.",
            ),
            Misconception(
                "wrong-bytes-per-param",
                "tokens_per_s",
                1 / wrong,
                f"That assumes {wrong_b} byte(s) per parameter. {p.weight_dtype.upper()} "
                f"weights take {sig(b)} byte(s) each.",
            ),
            Misconception(
                "unit-scale",
                "tpot",
                seconds,
                "That is the time in seconds; the question asks for milliseconds (x 1000).",
            ),
            Misconception(
                "unit-scale",
                "tokens_per_s",
                1 / (seconds * 1e3),
                "That inverts the time in milliseconds, giving tokens per millisecond. "
                "Invert the time in seconds to get tokens per second.",
            ),
        ]
        if p.n_gpus > 1 and not any(
            m.part == "tpot" and abs(m.value - seconds * 1e3 * p.n_gpus) < 0.03 * m.value
            for m in out
        ):
            noun = self._noun(p)
            out += [
                Misconception(
                    "per-gpu-vs-total",
                    "tpot",
                    seconds * 1e3 * p.n_gpus,
                    f"That streams all the weights through one device. The {p.n_gpus} "
                    f"{noun} each hold and read 1/{p.n_gpus} of them at the same time.",
                ),
                Misconception(
                    "per-gpu-vs-total",
                    "tokens_per_s",
                    1 / (seconds * p.n_gpus),
                    f"That streams all the weights through one device. The {p.n_gpus} "
                    f"{noun} each read 1/{p.n_gpus} of them in parallel.",
                ),
            ]
        return out

    def _noun(self, p: DecodeParams) -> str:
        hits = matching_accelerators(mem_bw_tbps=p.mem_bw_tbps)
        return device_noun([a for a, _ in hits], p.n_gpus)

    def factor_hints(self, p: DecodeParams) -> FactorHints:
        return FactorHints(parallelism=p.n_gpus if p.n_gpus > 1 else None)
