"""training-time: wall-clock days and GPU-hours of a pretraining run from the 6ND
compute estimate, the accelerators' dense peak and the MFU.
"""

from __future__ import annotations

import random

from pydantic import Field

from hardware_db import catalog
from problems.engine.numbers import params_count, sig, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import FactorHints, Misconception, Params, Part, Template
from problems.templates._common import (
    PRECISION_LABEL,
    accelerator_names,
    draw_accelerator,
    matching_accelerators,
    model_with_params,
    moe_with_active_params,
    peak_tflops_of,
    sparse_note,
    sparse_ratio,
)


class TrainingTimeParams(Params):
    n_params: float = Field(gt=0, le=1e14)
    n_tokens: float = Field(gt=0, le=1e17)
    n_gpus: int = Field(ge=1, le=10_000_000)
    peak_tflops: float = Field(gt=0, le=1e6)
    mfu: float = Field(gt=0, le=1)


TRAIN_SECONDS = formula(
    "t",
    lambda s: 6 * s.N * s.D / (s.n * s.P * s.u),
    N="N",
    D="D",
    n="n",
    P=r"P_{\mathrm{peak}}",
    u=r"\mathrm{MFU}",
)
GPU_HOURS = formula(r"G", lambda s: s.t / 3600 * s.n, t="t", n="n")

_TOKEN_BUDGETS = (3e11, 1e12, 2e12, 3e12, 5e12, 8e12, 1.5e13)
_GPU_COUNTS = (256, 512, 1024, 2048, 4096, 8192, 16384)
# 0.5 and 1/3 are left out so "ignored MFU" never coincides with the 2x and 3x slips.
_MFUS = (0.3, 0.35, 0.38, 0.4, 0.42, 0.45, 0.55)


def _seconds(p: TrainingTimeParams) -> float:
    return 6 * p.n_params * p.n_tokens / (p.n_gpus * p.peak_tflops * 1e12 * p.mfu)


@register
class TrainingTime(Template):
    slug = "training-time"
    title = "Training time and GPU-hours from 6ND"
    family = "training"
    lessons = (
        "what-ai-workloads-need",
        "distributed-training-data-parallel",
        "reliability-cost-at-scale",
    )
    skills = ("training-compute-6nd", "mfu", "gpu-hours")
    difficulty = 2
    Params = TrainingTimeParams

    def generate(self, rng: random.Random) -> TrainingTimeParams:
        models = catalog.models()
        while True:
            model = rng.choice(models)
            n = model.active_params if model.arch_type == "moe" else model.total_params
            # Sometimes Chinchilla-optimal: about 20 tokens per parameter, to two figures.
            chinchilla = rng.random() < 0.3
            tokens = float(f"{20 * n:.2g}") if chinchilla else rng.choice(_TOKEN_BUDGETS)
            acc, prec = draw_accelerator(rng, ("bf16", "bf16", "bf16", "fp8"), need_bw=False)
            p = TrainingTimeParams(
                n_params=float(n),
                n_tokens=tokens,
                n_gpus=rng.choice(_GPU_COUNTS),
                peak_tflops=peak_tflops_of(acc, prec),
                mfu=rng.choice(_MFUS),
            )
            if 0.5 <= _seconds(p) / 86400 <= 200:
                return p

    def solve(self, p: TrainingTimeParams) -> dict[str, Part]:
        seconds = _seconds(p)
        return {
            "days": Part("days", seconds / 86400, "d", label="Wall-clock time"),
            "gpu_hours": Part("gpu_hours", seconds / 3600 * p.n_gpus, "GPU-h", label="GPU-hours"),
        }

    def statement(self, p: TrainingTimeParams) -> str:
        moe = moe_with_active_params(p.n_params)
        if moe is not None:
            model = (
                f"{moe.name}, a mixture-of-experts model with {params_count(moe.total_params)} "
                f"parameters in all, of which $N = {tex(p.n_params, 15)}$ "
                f"({params_count(p.n_params)}) are active for each token"
            )
        else:
            named = model_with_params(p.n_params)
            name = named.name if named else "a dense model"
            model = f"{name} ($N = {tex(p.n_params, 15)}$ parameters, {params_count(p.n_params)})"
        gpus = matching_accelerators(peak_tflops=p.peak_tflops)
        if gpus:
            prec = PRECISION_LABEL[gpus[0][1] or "bf16"]
            gpu = (
                f"{p.n_gpus:,} GPUs ({accelerator_names(gpus)}), each with a dense {prec} peak "
                f"of {sig(p.peak_tflops, 12)} TFLOP/s.{sparse_note(gpus)}"
            )
        else:
            gpu = f"{p.n_gpus:,} GPUs, each with a dense peak of {sig(p.peak_tflops, 12)} TFLOP/s."
        return (
            f"You pretrain {model}. The run covers $D = {tex(p.n_tokens, 15)}$ training "
            f"tokens on {gpu} "
            f"The run sustains a model FLOPs utilization of $\\mathrm{{MFU}} = "
            f"{tex(p.mfu, 12)}$.\n\n"
            "Estimate the training compute as $6ND$ FLOP (forward and backward pass) and "
            "ignore failures, restarts and evaluation. How long does the run take in days "
            "(d) of wall-clock time, and how many GPU-hours (GPU-h) does it consume?"
        )

    def solution(self, p: TrainingTimeParams) -> str:
        seconds = _seconds(p)
        gpu_hours = seconds / 3600 * p.n_gpus
        return (
            f"Compute: $6 N D = {tex(6 * p.n_params * p.n_tokens, 6)}$ FLOP. The cluster "
            "delivers $n \\times P_{\\mathrm{peak}} \\times \\mathrm{MFU}$ FLOP/s:\n\n"
            + step(
                TRAIN_SECONDS,
                {
                    "N": tex(p.n_params, 15),
                    "D": tex(p.n_tokens, 15),
                    "n": p.n_gpus,
                    "P": f"{tex(p.peak_tflops, 12)} \\times 10^{{12}}",
                    "u": p.mfu,
                },
                seconds,
                "s",
            )
            + f"\n\nDivide by 86,400 s per day: **{sig(seconds / 86400, 6)} d**. Every GPU is "
            "busy for the whole run, so multiply the hours by the GPU count:\n\n"
            + step(GPU_HOURS, {"t": seconds, "n": p.n_gpus}, gpu_hours, r"GPU\text{-}h")
        )

    def misconceptions(self, p: TrainingTimeParams) -> list[Misconception]:
        seconds = _seconds(p)
        days, gpu_hours = seconds / 86400, seconds / 3600 * p.n_gpus
        out: list[Misconception] = []
        ratio = sparse_ratio(matching_accelerators(peak_tflops=p.peak_tflops))
        for part, value in (("days", days), ("gpu_hours", gpu_hours)):
            out += [
                Misconception(
                    "mfu-ignored",
                    part,
                    value * p.mfu,
                    "That assumes every GPU runs at its full peak. Divide by the MFU: the run "
                    "only sustains that fraction of peak.",
                ),
                Misconception(
                    "inference-2n",
                    part,
                    value / 3,
                    "That uses 2N FLOP per token, a forward pass only. Training also runs "
                    "the backward pass (about twice the forward): 6N per token.",
                ),
            ]
            if ratio is not None:
                out.append(
                    Misconception(
                        "sparse-peak",
                        part,
                        value / ratio,
                        "That uses the 2:4 sparsity headline as the peak. Dense training "
                        "kernels only reach the dense figure.",
                    )
                )
        moe = moe_with_active_params(p.n_params)
        if moe is not None:
            ratio = moe.total_params / p.n_params
            out += [
                Misconception(
                    "moe-total-params",
                    part,
                    value * ratio,
                    "That counts every expert. A token only passes through its routed "
                    "experts, so the compute follows the active parameters.",
                )
                for part, value in (("days", days), ("gpu_hours", gpu_hours))
            ]
        return out

    def factor_hints(self, p: TrainingTimeParams) -> FactorHints:
        return FactorHints(parallelism=p.n_gpus if p.n_gpus > 1 else None)
