"""training-memory-adam: the model states (weights, gradients, Adam's FP32 state) per
GPU for each ZeRO stage, from the ZeRO paper's 2 + 2 + 12 bytes per parameter.
"""

from __future__ import annotations

import random

from pydantic import Field

from hardware_db import catalog
from problems.engine.numbers import UNIT_BYTES, params_count, sig, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import FactorHints, Misconception, Params, Part, Template
from problems.templates.memory._family import (
    OTHER_UNIT,
    SizeUnit,
    model_name,
    unit_note,
)


class TrainingParams(Params):
    n_params: float = Field(gt=0, le=1e14)
    n_gpus: int = Field(ge=1, le=1_000_000)
    zero_stage: int = Field(ge=0, le=3)
    unit: SizeUnit


# Mixed-precision Adam (ZeRO paper, section 3.1): 2 B weights + 2 B gradients + 12 B
# optimizer state per parameter; each ZeRO stage shards one more of the three over N.
_STAGE_EXPR = {
    0: lambda s: 16 * s.P,
    1: lambda s: 4 * s.P + 12 * s.P / s.n,
    2: lambda s: 2 * s.P + 14 * s.P / s.n,
    3: lambda s: 16 * s.P / s.n,
}
TRAINING = {
    stage: formula(r"M_{\mathrm{GPU}}", build, P=r"\Psi", n="N_d")
    for stage, build in _STAGE_EXPR.items()
}


def _training_bytes(n: float, gpus: int, stage: int) -> float:
    if stage == 0:
        return 16 * n
    if stage == 1:
        return 4 * n + 12 * n / gpus
    if stage == 2:
        return 2 * n + 14 * n / gpus
    return 16 * n / gpus


@register
class TrainingMemoryAdam(Template):
    slug = "training-memory-adam"
    title = "Training memory per GPU with Adam and ZeRO"
    family = "memory"
    lessons = ("gpu-memory-math", "model-parallelism")
    skills = ("training-state-bytes", "zero-sharding")
    difficulty = 2
    Params = TrainingParams

    def generate(self, rng: random.Random) -> TrainingParams:
        model = rng.choice(catalog.models())
        return TrainingParams(
            n_params=float(model.total_params),
            n_gpus=rng.choice([8, 16, 32, 64, 128, 256, 512, 1024]),
            zero_stage=rng.randint(0, 3),
            unit=rng.choice(["GB", "GiB"]),
        )

    def solve(self, p: TrainingParams) -> dict[str, Part]:
        value = _training_bytes(p.n_params, p.n_gpus, p.zero_stage) / UNIT_BYTES[p.unit]
        return {"per_gpu": Part("per_gpu", value, p.unit, label="Model-state memory per GPU")}

    def statement(self, p: TrainingParams) -> str:
        stage = (
            "plain data parallelism (no ZeRO)"
            if p.zero_stage == 0
            else f"ZeRO stage {p.zero_stage}"
        )
        return (
            f"You train {model_name(p.n_params) or 'a model'} "
            f"({params_count(p.n_params)} parameters, $\\Psi = {tex(p.n_params, 12)}$) "
            f"with mixed-precision Adam on {p.n_gpus} GPUs using {stage}, data-parallel degree "
            f"$N_d = {p.n_gpus}$. Per parameter the model states are 2 bytes of BF16 weights, "
            "2 bytes of BF16 gradients and 12 bytes of FP32 optimizer state (master weights, "
            "momentum, variance).\n\n"
            f"Ignoring activations and buffers, how much memory do the model states take on "
            f"**each** GPU, in {unit_note(p.unit)}?"
        )

    def solution(self, p: TrainingParams) -> str:
        total = _training_bytes(p.n_params, p.n_gpus, p.zero_stage)
        value = total / UNIT_BYTES[p.unit]
        what = {
            0: "Without ZeRO every GPU holds all 16 bytes per parameter.",
            1: "Stage 1 shards the 12 bytes of optimizer state; weights and gradients stay whole.",
            2: "Stage 2 shards optimizer state and gradients; only the 2-byte weights stay whole.",
            3: "Stage 3 shards weights, gradients and optimizer state: all 16 bytes.",
        }[p.zero_stage]
        divisor = "2^{30}" if p.unit == "GiB" else "10^{9}"
        return (
            f"{what}\n\n"
            + step(TRAINING[p.zero_stage], {"P": p.n_params, "n": p.n_gpus}, total, "B")
            + f"\n\nDivide by ${divisor}$ bytes per {p.unit}: **{sig(value, 6)} {p.unit}** per GPU."
        )

    def misconceptions(self, p: TrainingParams) -> list[Misconception]:
        unit = UNIT_BYTES[p.unit]
        out = [
            Misconception(
                "gb-vs-gib",
                "per_gpu",
                _training_bytes(p.n_params, p.n_gpus, p.zero_stage)
                / UNIT_BYTES[OTHER_UNIT[p.unit]],
                f"That is the figure in {OTHER_UNIT[p.unit]}; the question asks for {p.unit}.",
            )
        ]
        if p.zero_stage != 0:
            out.append(
                Misconception(
                    "zero-not-applied",
                    "per_gpu",
                    16 * p.n_params / unit,
                    "That is the unsharded 16 bytes per parameter. ZeRO stage "
                    f"{p.zero_stage} divides part of the state across the {p.n_gpus} GPUs.",
                )
            )
        if p.zero_stage != 3:
            out.append(
                Misconception(
                    "zero-stage-confused",
                    "per_gpu",
                    16 * p.n_params / p.n_gpus / unit,
                    "That shards all 16 bytes, which only stage 3 does. "
                    f"Stage {p.zero_stage} keeps some of the state whole on every GPU.",
                )
            )
        out.append(
            Misconception(
                "weights-only",
                "per_gpu",
                2 * p.n_params / unit,
                "That counts only the BF16 weights. Training with Adam also keeps gradients "
                "and 12 bytes of FP32 optimizer state per parameter.",
            )
        )
        return out

    def factor_hints(self, p: TrainingParams) -> FactorHints:
        return FactorHints(parallelism=p.n_gpus)
