"""training-time: wall-clock days and GPU-hours of a pretraining run from the 6ND
compute estimate, the accelerators' dense peak and the MFU.

Realism constraints:
- Training only on training parts. The catalog has no "purpose" flag, so the rule follows
  the vendors' positioning: a part trains here unless it is an inference part (AWS
  Inferentia) or a PCIe card (H100 PCIe, H100 NVL, L40S: sold for inference and
  small-scale fine-tuning, with no scale-up fabric across hundreds of nodes). That
  leaves A100/H100/H200/B200 SXM, GB200, AMD Instinct MI250X-MI355X, Intel Gaudi 3,
  Google TPU v5e/v5p/v6e and AWS Trainium2.
- "GPU" only for GPUs (NVIDIA, AMD; MI250X's two-GCD package is an accelerator); TPU
  chips, Trainium2 chips and Gaudi accelerators otherwise. The part is still named
  gpu_hours (the contract); the statement asks for chip-hours or accelerator-hours where
  the devices are not GPUs.
- 256 to 16,384 devices in multiples of 256, never 1,000 or 1,024 (a unit factor: the
  x1000 slip would read as "per device versus total"); Intel Gaudi 3 at most 4,096.
- Runs of 5 to 120 days, and a cluster sized to the model: at most 128 devices per
  billion (active) parameters (Llama 3 405B ran on 16,384 H100s, about 40 per billion),
  so no 7B model is spread over thousands of devices for a day.

Convention examined: where the part has a 2:4 sparse figure of 2x dense, three variants
in four (by a hash of the parameters) give only that datasheet headline, marked as
sparse; the learner halves it. Discrimination: forgetting the device count (days x n, or
hours for GPU-hours) is named as per-gpu-vs-total.
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
    matching_accelerators,
    model_with_params,
    moe_with_active_params,
    peak_tflops_of,
    sparse_note,
    sparse_ratio,
)
from problems.templates.roofline._family import halving_note, quotes_sparse, sparse_clause
from problems.templates.serving._family import device_noun


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
_GPU_COUNTS = (256, 512, 768, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384)
_MAX_COUNT = {"Intel": 4096}


def training_part(acc: catalog.Accelerator) -> bool:
    """Positioned for training at scale: not an inference chip, not a PCIe card."""
    return "Inferentia" not in acc.name and "PCIe" not in acc.form_factor


def training_hits(peak_tflops: float):
    """The training parts whose dense peak is `peak_tflops` (with its precision)."""
    return [h for h in matching_accelerators(peak_tflops=peak_tflops) if training_part(h[0])]


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
    version = 2
    Params = TrainingTimeParams

    def generate(self, rng: random.Random) -> TrainingTimeParams:
        models = catalog.models()
        while True:
            model = rng.choice(models)
            n = model.active_params if model.arch_type == "moe" else model.total_params
            # Sometimes Chinchilla-optimal: about 20 tokens per parameter, to two figures.
            chinchilla = rng.random() < 0.3
            tokens = float(f"{20 * n:.2g}") if chinchilla else rng.choice(_TOKEN_BUDGETS)
            acc, prec = rng.choice(
                [
                    (a, prec)
                    for a in catalog.accelerators()
                    if training_part(a)
                    for prec in ("bf16", "bf16", "bf16", "fp8")
                    if prec in a.dense_flops
                ]
            )
            top = _MAX_COUNT.get(acc.vendor, max(_GPU_COUNTS))
            p = TrainingTimeParams(
                n_params=float(n),
                n_tokens=tokens,
                n_gpus=rng.choice([c for c in _GPU_COUNTS if c <= top]),
                peak_tflops=peak_tflops_of(acc, prec),
                mfu=rng.choice(_MFUS),
            )
            if p.n_gpus > max(256, 128 * n / 1e9):
                continue
            if 5 <= _seconds(p) / 86400 <= 120:
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
        gpus = training_hits(p.peak_tflops)
        noun = device_noun([a for a, _ in gpus], p.n_gpus)
        if gpus:
            prec = PRECISION_LABEL[gpus[0][1] or "bf16"]
            sparse = self._sparse(p, gpus)
            if sparse is not None:
                figure = f"each with {sparse_clause(sparse, prec)}."
            else:
                figure = (
                    f"each with a dense {prec} peak of {sig(p.peak_tflops, 12)} TFLOP/s."
                    f"{sparse_note(gpus)}"
                )
            gpu = f"{p.n_gpus:,} {noun} ({accelerator_names(gpus)}), {figure}"
        else:
            gpu = (
                f"{p.n_gpus:,} {noun}, each with a dense peak of {sig(p.peak_tflops, 12)} TFLOP/s."
            )
        hours = (
            "GPU-hours (GPU-h)"
            if noun == "GPUs"
            else (
                f"{noun.removesuffix('s').split()[-1]}-hours (one {noun.removesuffix('s')} for "
                "one hour; give them as GPU-h)"
            )
        )
        return (
            f"You pretrain {model}. The run covers $D = {tex(p.n_tokens, 15)}$ training "
            f"tokens on {gpu} "
            f"The run sustains a model FLOPs utilization of $\\mathrm{{MFU}} = "
            f"{tex(p.mfu, 12)}$.\n\n"
            "Estimate the training compute as $6 N D$ FLOP (forward and backward pass) and "
            "ignore failures, restarts and evaluation. How long does the run take in days "
            f"(d) of wall-clock time, and how many {hours} does it consume?"
        )

    def solution(self, p: TrainingTimeParams) -> str:
        seconds = _seconds(p)
        gpu_hours = seconds / 3600 * p.n_gpus
        gpus = training_hits(p.peak_tflops)
        return halving_note(self._sparse(p, gpus), p.peak_tflops) + (
            f"Compute: $6 N D = {tex(6 * p.n_params * p.n_tokens, 6)}$ FLOP. The cluster of "
            f"$n = {tex(p.n_gpus)}$ devices, each with a dense peak of "
            f"$P_{{\\mathrm{{peak}}}} = {tex(p.peak_tflops, 12)}$ TFLOP/s, "
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
            + f"\n\nDivide by 86,400 s per day: **{sig(seconds / 86400, 6)} d**. Every device "
            "is busy for the whole run, so multiply the hours by the device count; an hour is "
            "$3600$ seconds:\n\n"
            + step(GPU_HOURS, {"t": seconds, "n": p.n_gpus}, gpu_hours, r"GPU\text{-}h")
        )

    def misconceptions(self, p: TrainingTimeParams) -> list[Misconception]:
        seconds = _seconds(p)
        days, gpu_hours = seconds / 86400, seconds / 3600 * p.n_gpus
        out: list[Misconception] = []
        ratio = sparse_ratio(training_hits(p.peak_tflops))
        if p.n_gpus > 1:
            out += [
                Misconception(
                    "per-gpu-vs-total",
                    "days",
                    days * p.n_gpus,
                    f"That is the time one device would need alone. The {p.n_gpus:,} devices "
                    "share the compute, so divide by their count.",
                ),
                Misconception(
                    "per-gpu-vs-total",
                    "gpu_hours",
                    gpu_hours / p.n_gpus,
                    "That is the wall-clock hours. Every device is busy for all of them, so "
                    f"multiply by the {p.n_gpus:,} devices.",
                ),
            ]
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

    @staticmethod
    def _sparse(p: TrainingTimeParams, hits) -> float | None:
        return quotes_sparse(hits, p.n_params, p.n_tokens, p.n_gpus, p.peak_tflops, p.mfu)

    def factor_hints(self, p: TrainingTimeParams) -> FactorHints:
        return FactorHints(parallelism=p.n_gpus if p.n_gpus > 1 else None)
