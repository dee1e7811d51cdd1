"""mfu-from-throughput: the model FLOP/s each GPU achieves, and the MFU, from a training
job's measured token throughput (6N FLOP per trained token, attention FLOPs ignored).

Realism constraints:
- Dense catalog models only (an MoE's 6N would need its active parameters, a separate
  question), on training parts (training_part: no inference chips, no PCIe cards) at
  their dense BF16 peak.
- 64 to 16,384 devices (never 1,000 or 1,024), at most 128 per billion parameters and
  at least 8 per billion for models above 20B (a 405B model does not train on 64 GPUs).
- The throughput comes from an MFU of 25-55%, the range published runs report (Llama 3
  405B: 38-43% on H100; Megatron GPT-3 175B: about 45%), rounded to three figures.

Slips named: forgetting the device count (the job's throughput taken as one GPU's),
2N instead of 6N per token (forward pass only), and the 8N of full activation
recomputation counted as model FLOPs (that is hardware FLOPs, not MFU).
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
    accelerator_names,
    dense_models,
    model_with_params,
    parts_separated,
    peak_tflops_of,
)
from problems.templates.serving._family import device_noun
from problems.templates.training.pretraining_time import training_hits, training_part


class MfuParams(Params):
    n_params: float = Field(gt=0, le=1e14)
    tokens_per_s: float = Field(gt=0, le=1e12)
    n_gpus: int = Field(ge=1, le=10_000_000)
    peak_tflops: float = Field(gt=0, le=1e6)


ACHIEVED = formula(
    r"F",
    lambda s: 6 * s.N * s.r / s.n,
    N="N",
    r=r"R",
    n="n",
)
MFU = formula(r"\mathrm{MFU}", lambda s: s.F / s.P, F="F", P=r"P_{\mathrm{peak}}")

_GPU_COUNTS = (64, 128, 256, 512, 768, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384)
_MAX_COUNT = {"Intel": 4096}


def _achieved(p: MfuParams) -> float:
    """TFLOP/s per GPU."""
    return 6 * p.n_params * p.tokens_per_s / p.n_gpus / 1e12


@register
class MfuFromThroughput(Template):
    slug = "mfu-from-throughput"
    title = "MFU from measured training throughput"
    family = "training"
    lessons = ("distributed-training-data-parallel", "what-ai-workloads-need")
    skills = ("mfu", "training-compute-6nd")
    difficulty = 2
    version = 1
    Params = MfuParams

    def generate(self, rng: random.Random) -> MfuParams:
        while True:
            model = rng.choice(dense_models())
            acc = rng.choice(
                [a for a in catalog.accelerators() if training_part(a) and "bf16" in a.dense_flops]
            )
            billions = model.total_params / 1e9
            top = _MAX_COUNT.get(acc.vendor, max(_GPU_COUNTS))
            counts = [
                c
                for c in _GPU_COUNTS
                if c <= min(top, max(64, 128 * billions)) and (billions < 20 or c >= 8 * billions)
            ]
            if not counts:
                continue
            n = rng.choice(counts)
            peak = peak_tflops_of(acc, "bf16")
            mfu = rng.uniform(0.25, 0.55)
            rate = float(f"{mfu * peak * 1e12 * n / (6 * model.total_params):.3g}")
            p = MfuParams(
                n_params=float(model.total_params), tokens_per_s=rate, n_gpus=n, peak_tflops=peak
            )
            if parts_separated(self.solve(p), self.misconceptions(p)):
                return p

    def solve(self, p: MfuParams) -> dict[str, Part]:
        achieved = _achieved(p)
        return {
            "achieved_tflops": Part(
                "achieved_tflops", achieved, "TFLOP/s", label="Achieved model FLOP/s per GPU"
            ),
            "mfu": Part("mfu", achieved / p.peak_tflops * 100, "%", label="MFU"),
        }

    def statement(self, p: MfuParams) -> str:
        named = model_with_params(p.n_params)
        name = named.name if named else "A dense model"
        hits = training_hits(p.peak_tflops)
        noun = device_noun([a for a, _ in hits], p.n_gpus)
        where = f" ({accelerator_names(hits)})" if hits else ""
        return (
            f"{name} ($N = {tex(p.n_params, 15)}$ parameters, {params_count(p.n_params)}) "
            f"trains on {p.n_gpus:,} {noun}{where}, each with a dense BF16 peak of "
            f"$P_{{\\mathrm{{peak}}}} = {tex(p.peak_tflops, 12)}$ TFLOP/s. The training logs "
            f"show the whole job processing $R = {tex(p.tokens_per_s, 12)}$ tokens per second "
            "(summed over all devices).\n\n"
            "Count the model FLOPs as $6N$ per trained token (forward and backward pass; "
            "ignore the attention FLOPs and any recomputation). What model FLOP/s does each "
            "device achieve, in TFLOP/s, and what is the model FLOPs utilization (MFU), in %?"
        )

    def solution(self, p: MfuParams) -> str:
        achieved = _achieved(p)
        return (
            "The job's model FLOP/s are $6N$ per token times the token rate, shared by the "
            f"$n = {tex(p.n_gpus)}$ devices:\n\n"
            + step(
                ACHIEVED,
                {"N": tex(p.n_params, 15), "r": tex(p.tokens_per_s, 12), "n": p.n_gpus},
                achieved * 1e12,
                r"FLOP/s",
            )
            + f"\n\nthat is **{sig(achieved, 6)} TFLOP/s** per device. Divide by the peak:\n\n"
            + step(
                MFU,
                {"F": sig(achieved, 8), "P": sig(p.peak_tflops, 12)},
                achieved / p.peak_tflops,
            )
            + f"\n\nMFU = **{sig(achieved / p.peak_tflops * 100, 6)} %**."
        )

    def misconceptions(self, p: MfuParams) -> list[Misconception]:
        achieved = _achieved(p)
        mfu = achieved / p.peak_tflops * 100
        out: list[Misconception] = []
        for part, value in (("achieved_tflops", achieved), ("mfu", mfu)):
            if p.n_gpus > 1:
                out.append(
                    Misconception(
                        "per-gpu-vs-total",
                        part,
                        value * p.n_gpus,
                        f"That is the whole job's figure. The token rate is summed over all "
                        f"{p.n_gpus:,} devices, so divide by their count for one device.",
                    )
                )
            out += [
                Misconception(
                    "inference-2n",
                    part,
                    value / 3,
                    "That uses 2N FLOP per token, a forward pass only. Training also runs "
                    "the backward pass (about twice the forward): 6N per token.",
                ),
                Misconception(
                    "recompute-counted",
                    part,
                    value * 4 / 3,
                    "That counts 8N per token, as if activation recomputation (a second "
                    "forward pass) were model work. MFU counts only the 6N the model needs; "
                    "8N gives the hardware FLOPs utilization (HFU).",
                ),
            ]
        return out

    def factor_hints(self, p: MfuParams) -> FactorHints:
        return FactorHints(parallelism=p.n_gpus if p.n_gpus > 1 else None)
