"""moe-decode-floor: the memory-bandwidth floor on time per output token of a
mixture-of-experts model at batch 1, which reads only the active parameters, and the
memory that holds every expert.

Realism: a catalog MoE model (its total and active counts as published) on a catalog
part with a published bandwidth, at a weight precision the part runs (FP8/FP4 only where
it publishes a peak for them), on the smallest of 1, 2, 4 or 8 devices that holds all the
experts with room to spare (sometimes doubled), with expert and tensor parallelism
spreading the reads evenly. The devices are called GPUs only when they are GPUs.
Discrimination: reading every expert (total-params-read), one device doing all the reads
(per-gpu-vs-total, on tpot) or one device's share given as the memory (per-gpu-vs-total,
on memory), and only the active experts resident (active-only-resident). A variant is
redrawn unless the answer and every slip of a part lie 3% apart. No parallelism hint for
the generic detector: it would name a generic 2x, 4x or 8x bytes slip per-gpu-vs-total.
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field, model_validator

from hardware_db import catalog
from problems.engine.numbers import BYTES_PER_ELEMENT, params_count, sig, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import (
    accelerator_names,
    bw_tbps_of,
    matching_accelerators,
    parts_separated,
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


class MoeParams(Params):
    n_total_params: float = Field(gt=0, le=1e14)
    n_active_params: float = Field(gt=0, le=1e14)
    weight_dtype: Precision
    mem_bw_tbps: float = Field(gt=0, le=1e4)
    n_gpus: int = Field(ge=1, le=4096)

    @model_validator(mode="after")
    def _active_within_total(self) -> MoeParams:
        if self.n_active_params > self.n_total_params:
            raise ValueError("the active parameters cannot exceed the total")
        return self


TPOT = formula(
    r"t_{\mathrm{token}}",
    lambda s: s.A * s.b / (s.n * s.B),
    A=r"N_{\mathrm{active}}",
    b="b",
    n="n",
    B=r"B_{\mathrm{mem}}",
)
MEMORY = formula(r"M", lambda s: s.T * s.b, T=r"N_{\mathrm{total}}", b="b")


def _moe_models() -> list[catalog.ModelArch]:
    return [m for m in catalog.models() if m.arch_type == "moe"]


def _named(p: MoeParams) -> catalog.ModelArch | None:
    return next(
        (
            m
            for m in _moe_models()
            if m.total_params == p.n_total_params and m.active_params == p.n_active_params
        ),
        None,
    )


def _seconds(p: MoeParams, n_params: float, n: int | None = None) -> float:
    return n_params * BYTES_PER_ELEMENT[p.weight_dtype] / ((n or p.n_gpus) * p.mem_bw_tbps * 1e12)


def _gb(p: MoeParams, n_params: float) -> float:
    return n_params * BYTES_PER_ELEMENT[p.weight_dtype] / 1e9


@register
class MoeDecodeFloor(Template):
    slug = "moe-decode-floor"
    title = "A mixture-of-experts model's decode floor and resident memory"
    family = "serving"
    lessons = (
        "prefill-decode-and-the-cost-of-a-token",
        "llm-inference-at-scale",
        "gpu-memory-math",
    )
    skills = ("mixture-of-experts", "decode-bandwidth-bound", "weights-bytes")
    difficulty = 2
    version = 1
    Params = MoeParams
    feasibility = serving_system.MOE_DECODE

    def generate(self, rng: random.Random) -> MoeParams:
        models = _moe_models()
        accs = [a for a in catalog.accelerators() if a.mem_bw_bytes_per_s > 0]
        while True:
            model = rng.choice(models)
            acc = rng.choice(accs)
            dtype = rng.choice(weight_dtypes(acc))
            n = gpu_count(rng, model.total_params * BYTES_PER_ELEMENT[dtype], acc)
            if n is None:
                continue
            p = MoeParams(
                n_total_params=float(model.total_params),
                n_active_params=float(model.active_params),
                weight_dtype=dtype,
                mem_bw_tbps=bw_tbps_of(acc),
                n_gpus=n,
            )
            if parts_separated(self.solve(p), self.misconceptions(p), 0.03):
                return p

    def solve(self, p: MoeParams) -> dict[str, Part]:
        return {
            "tpot": Part(
                "tpot", _seconds(p, p.n_active_params) * 1e3, "ms", label="Time per token (floor)"
            ),
            "memory": Part(
                "memory", _gb(p, p.n_total_params), "GB", label="Weight memory, all devices"
            ),
        }

    def _noun(self, p: MoeParams, n: int) -> tuple[str, list]:
        hits = matching_accelerators(mem_bw_tbps=p.mem_bw_tbps)
        return device_noun([a for a, _ in hits], n), hits

    def statement(self, p: MoeParams) -> str:
        named = _named(p)
        b = BYTES_PER_ELEMENT[p.weight_dtype]
        model = (
            f"{named.name}, a mixture-of-experts model," if named else "A mixture-of-experts model"
        )
        noun, hits = self._noun(p, p.n_gpus)
        which = f" ({accelerator_names(hits)})" if hits else ""
        if p.n_gpus == 1:
            hardware = (
                f"It runs on a single {noun}{which}, which reads its HBM at "
                f"{sig(p.mem_bw_tbps, 12)} TB/s."
            )
        else:
            hardware = (
                f"It runs on {p.n_gpus} {noun}{which}, each reading its HBM at "
                f"{sig(p.mem_bw_tbps, 12)} TB/s; the experts and layers are spread so that "
                f"every token's reads are split evenly over the {p.n_gpus} {noun}."
            )
        return (
            f"{model} has {params_count(p.n_total_params)} parameters in all "
            f"($N_{{\\mathrm{{total}}}} = {tex(p.n_total_params, 15)}$), of which "
            f"{params_count(p.n_active_params)} "
            f"($N_{{\\mathrm{{active}}}} = {tex(p.n_active_params, 15)}$) are active for each "
            "token (the shared layers plus the experts its router picks). Its weights are "
            f"in **{p.weight_dtype.upper()}**, {sig(b)} byte{'' if b == 1 else 's'} per "
            f"parameter (ignore quantization scales). {hardware}\n\n"
            "It serves one sequence at a time (batch size 1), and every expert stays "
            "resident in memory. A decode step reads only the active parameters from HBM; "
            "ignore KV-cache reads, compute and communication.\n\n"
            f"1. What is the floor on the {TPOT_ONE_SEQUENCE}, in ms?\n"
            "2. How much memory do the weights take, over all the devices together, in GB "
            "($10^9$ bytes)?"
        )

    def solution(self, p: MoeParams) -> str:
        b = BYTES_PER_ELEMENT[p.weight_dtype]
        seconds = _seconds(p, p.n_active_params)
        return (
            "Only the active parameters are read for each token, at "
            + per_param(b)
            + ", "
            + read_rate_sentence(p.n_gpus, self._noun(p, p.n_gpus)[0], p.mem_bw_tbps)
            + ":\n\n"
            + step(
                TPOT,
                {
                    "A": tex(p.n_active_params, 15),
                    "b": b,
                    "n": p.n_gpus,
                    "B": f"{tex(p.mem_bw_tbps, 12)} \\times 10^{{12}}",
                },
                seconds,
                "s",
            )
            + f"\n\nThat is **{sig(seconds * 1e3, 6)} ms** per token. But the router may "
            "pick any expert for the next token, so all of them stay in memory:\n\n"
            + step(
                MEMORY,
                {"T": tex(p.n_total_params, 15), "b": b},
                _gb(p, p.n_total_params) * 1e9,
                "B",
            )
            + f"\n\nthat is **{sig(_gb(p, p.n_total_params), 6)} GB** over all the devices "
            "together: an MoE model decodes like a small model but needs the memory of a "
            "large one."
        )

    def misconceptions(self, p: MoeParams) -> list[Misconception]:
        ms = _seconds(p, p.n_active_params) * 1e3
        out = [
            Misconception(
                "total-params-read",
                "tpot",
                _seconds(p, p.n_total_params) * 1e3,
                "That reads every expert for each token. The router activates only some "
                "experts: a step reads just the active parameters.",
            ),
            Misconception(
                "active-only-resident",
                "memory",
                _gb(p, p.n_active_params),
                "That keeps only the active parameters in memory. Any token may pick any "
                "expert, so every expert stays resident: count all the parameters.",
            ),
        ]
        if p.n_gpus > 1:
            out += [
                Misconception(
                    "per-gpu-vs-total",
                    "tpot",
                    ms * p.n_gpus,
                    f"That streams the active weights through one device. The {p.n_gpus} "
                    "devices each read their share at the same time.",
                ),
                Misconception(
                    "per-gpu-vs-total",
                    "memory",
                    _gb(p, p.n_total_params) / p.n_gpus,
                    f"That is one device's share. The question asks for the weights over "
                    f"all {p.n_gpus} devices together.",
                ),
            ]
        return out
