"""tp-min-gpus: the smallest power-of-two tensor-parallel degree whose devices hold the
weights, keeping a stated fraction of each device free. The fit is decided on exact
decimals, so a model that exactly fills its devices is not rounded into a miss; the
generator keeps models that fit nowhere rare and thins out the trivial single-GPU case.
"""

from __future__ import annotations

import math
import random
from typing import Any

from pydantic import Field

from hardware_db import catalog
from problems.engine.numbers import exact, params_count, sig
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import (
    model_with_params,
    sig15,
    tex15,
    usable_gib_of,
)
from problems.templates.kv_cache._family import (
    GIB,
    Dtype,
    bpe,
    bytes_phrase,
    device_phrase,
)

POWERS_OF_TWO = (1, 2, 4, 8, 16, 32, 64)


class TpMinParams(Params):
    n_params: float = Field(gt=0, le=1e14)
    weight_dtype: Dtype
    gpu_mem_gib: float = Field(gt=0, le=100_000)
    reserve_fraction: float = Field(ge=0, lt=1)


TP_RATIO = formula(
    r"\frac{W}{C}",
    lambda s: s.N * s.b / (s.G * s.c * (1 - s.r)),
    N="N",
    b="b",
    G="G",
    c="c",
    r="r",
)


def _min_pow2(
    n_params: float,
    dtype: str,
    gib: float,
    reserve: float,
    gib_bytes: int = GIB,
    candidates: tuple[int, ...] = POWERS_OF_TWO,
) -> int:
    """Smallest candidate n with N x b <= n x G x 2^30 x (1 - r), exactly; 0 if none."""
    weights = exact(n_params) * exact(bpe(dtype))
    per_gpu = exact(gib) * gib_bytes * (1 - exact(reserve))
    for n in candidates:
        if weights <= n * per_gpu:
            return n
    return 0


@register
class TpMinGpus(Template):
    slug = "tp-min-gpus"
    title = "Fewest GPUs (a power of two) that hold the weights"
    family = "kv_cache"
    lessons = ("model-parallelism", "gpu-memory-math", "serving-models")
    skills = ("weights-bytes", "tensor-parallel-sizing", "units-gb-gib")
    difficulty = 2
    Params = TpMinParams

    def generate(self, rng: random.Random) -> TpMinParams:
        models = catalog.models()
        accs = catalog.accelerators()
        for _ in range(200):
            model = rng.choice(models)
            acc = rng.choice(accs)
            p = TpMinParams(
                n_params=float(model.total_params),
                weight_dtype=rng.choice(("bf16", "bf16", "fp16", "fp8", "fp8", "int4", "fp4")),
                gpu_mem_gib=usable_gib_of(acc),
                reserve_fraction=rng.choice((0.1, 0.1, 0.15, 0.2, 0.25, 0.3)),
            )
            answer = self._answer(p)
            ratio = (
                p.n_params * bpe(p.weight_dtype) / (p.gpu_mem_gib * GIB * (1 - p.reserve_fraction))
            )
            # Keep "does not fit even on 64" rare, and thin out the many single-GPU cases
            # (small models on big GPUs, trivial when the weights fill under half a device).
            if answer == 0 and rng.random() < 0.9:
                continue
            if answer == 1 and rng.random() < (0.9 if ratio < 0.5 else 0.5):
                continue
            return p
        return p

    def _answer(self, p: TpMinParams, **over: Any) -> int:
        args = {
            "n_params": p.n_params,
            "dtype": p.weight_dtype,
            "gib": p.gpu_mem_gib,
            "reserve": p.reserve_fraction,
        }
        args.update(over)
        return _min_pow2(**args)

    def solve(self, p: TpMinParams) -> dict[str, Part]:
        return {
            "min_gpus": Part(
                "min_gpus",
                self._answer(p),
                "",
                kind=Kind.INTEGER,
                tolerance=Exact(),
                label="Minimum GPUs (power of two)",
            )
        }

    def statement(self, p: TpMinParams) -> str:
        model = model_with_params(p.n_params)
        who = f"**{model.name}**" if model else "A model"
        return (
            f"{who} has {params_count(p.n_params)} parameters ($N = {tex15(p.n_params)}$), "
            f"stored in **{p.weight_dtype.upper()}** at {bytes_phrase(p.weight_dtype)} "
            "(ignore quantization scales). You shard the weights evenly with tensor "
            f"parallelism over {device_phrase(None, p.gpu_mem_gib)} devices, each with "
            f"$G = {tex15(p.gpu_mem_gib)}$ GiB of usable memory (1 GiB $= 2^{{30}}$ bytes), "
            f"keeping a fraction $r = {tex15(p.reserve_fraction)}$ of every device free for the "
            "KV cache, activations and the runtime.\n\n"
            "The tensor-parallel degree must be a power of two: 1, 2, 4, 8, 16, 32 or 64. What "
            "is the smallest degree whose devices can hold all the weights? Answer 0 if even 64 "
            "are not enough."
        )

    def solution(self, p: TpMinParams) -> str:
        b = bpe(p.weight_dtype)
        weights = p.n_params * b
        per_gpu = p.gpu_mem_gib * GIB * (1 - p.reserve_fraction)
        ratio = weights / per_gpu
        answer = self._answer(p)
        text = (
            f"The weights take $W = N b = {tex15(weights)}$ bytes. Each device may hold "
            f"$C = G \\cdot 2^{{30}} (1 - r) = {tex15(per_gpu)}$ bytes of them. "
            "The number of devices needed is the ratio, rounded up:\n\n"
            + step(
                TP_RATIO,
                {
                    "N": tex15(p.n_params),
                    "b": b,
                    "G": tex15(p.gpu_mem_gib),
                    "c": "2^{30}",
                    "r": tex15(p.reserve_fraction),
                },
                ratio,
            )
        )
        if answer == 0:
            text += (
                "\n\nThat is more than 64, the largest allowed degree, so the answer is **0**: "
                "the model needs bigger GPUs, lower precision or pipeline parallelism too."
            )
        else:
            text += f"\n\nThe smallest power of two at or above {sig(ratio, 4)} is **{answer}**."
        return text

    def misconceptions(self, p: TpMinParams) -> list[Misconception]:
        weights = exact(p.n_params) * exact(bpe(p.weight_dtype))
        per_gpu = exact(p.gpu_mem_gib) * GIB * (1 - exact(p.reserve_fraction))
        plain = math.ceil(weights / per_gpu)
        out = [
            Misconception(
                "gb-vs-gib",
                "min_gpus",
                self._answer(p, gib_bytes=10**9),
                f"That reads {sig15(p.gpu_mem_gib)} GiB as GB. A GiB is 2^30 bytes, 7.4% more "
                "than 10^9, so each GPU holds more than that assumes.",
            ),
            Misconception(
                "reserve-not-applied",
                "min_gpus",
                self._answer(p, reserve=0),
                f"That fills every GPU to the brim. A fraction {sig15(p.reserve_fraction)} "
                "of each GPU is kept free, so only the rest can hold weights.",
            ),
        ]
        if plain <= 64:
            out.append(
                Misconception(
                    "not-power-of-two",
                    "min_gpus",
                    plain,
                    f"{plain} GPUs would hold the weights, but the tensor-parallel degree must be "
                    "a power of two (it has to divide the attention heads and hidden size "
                    "evenly): round up to the next power of two.",
                )
            )
        if p.reserve_fraction > 0:
            out.append(
                Misconception(
                    "reserve-inverted",
                    "min_gpus",
                    self._answer(p, reserve=1 - exact(p.reserve_fraction)),
                    f"That lets the weights use only {sig15(p.reserve_fraction)} of each device. "
                    f"The fraction r is what is kept free; the weights get 1 - r.",
                )
            )
        if 1 < weights / per_gpu <= 64:
            below = 2 ** math.floor(math.log2(weights / per_gpu))
            out.append(
                Misconception(
                    "rounded-down",
                    "min_gpus",
                    int(below),
                    f"{int(below)} devices hold only part of the weights: the answer must be at or "
                    "above the ratio W/C, so round up to a power of two, not down.",
                )
            )
        wrong = "bf16" if bpe(p.weight_dtype) != 2 else "fp32"
        out.append(
            Misconception(
                "wrong-bytes-per-param",
                "min_gpus",
                self._answer(p, dtype=wrong),
                f"That sizes the weights at {sig(bpe(wrong))} bytes per parameter; "
                f"{p.weight_dtype.upper()} takes {sig(bpe(p.weight_dtype))}.",
            )
        )
        return out
