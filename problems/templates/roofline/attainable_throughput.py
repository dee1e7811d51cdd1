"""roofline-attainable: a kernel's arithmetic intensity, the throughput the roofline
allows it, and which roof limits it. The kernels are real transformer GEMMs, kept
clear of the ridge point so the other roof is never within tolerance.

Realism: catalog parts at a precision they publish a dense peak for, with their own HBM
bandwidth; GEMM shapes from catalog models (MLA models only their MLP GEMMs), 1 to 16,384
tokens. Discrimination: compute-bound kernels whose intensity lies below the sparse ridge
(2 x ridge) are redrawn, so the sparse-roof slip never lands on intensity x bandwidth
(the wrong-roof slip). Convention examined: where the part has a 2:4 sparse figure, most
variants quote only that datasheet headline, marked as sparse, and the learner halves it.
"""

from __future__ import annotations

import random

from pydantic import Field

from hardware_db import catalog
from problems.engine.numbers import exact, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, sp, step
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import (
    bw_tbps_of,
    draw_accelerator,
    matching_accelerators,
    peak_tflops_of,
    sparse_ratio,
)
from problems.templates.roofline._family import (
    describe_gpu,
    halving_note,
    quotes_sparse,
    roofs,
)


class AttainableParams(Params):
    peak_tflops: float = Field(gt=0, le=1e6)
    mem_bw_tbps: float = Field(gt=0, le=1e4)
    flops: float = Field(gt=0, le=1e24)
    bytes: float = Field(gt=0, le=1e24)


INTENSITY = formula("I", lambda s: s.F / s.Q, F="F", Q="Q")
ATTAINABLE = formula(
    r"P",
    lambda s: sp.Min(s.P, s.I * s.B),
    P=r"P_{\mathrm{peak}}",
    I="I",
    B=r"B_{\mathrm{mem}}",
)

# Matrix multiplies of one transformer layer: (name, K, N) from the model's shapes.
_GEMMS = (
    ("MLP up-projection", lambda m: (m.hidden_size, m.intermediate_size)),
    ("MLP down-projection", lambda m: (m.intermediate_size, m.hidden_size)),
    (
        "QKV projection",
        lambda m: (m.hidden_size, (m.n_heads + 2 * m.n_kv_heads) * m.head_dim),
    ),
    ("attention output projection", lambda m: (m.n_heads * m.head_dim, m.hidden_size)),
)
_TOKENS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)
_GEMM_BYTES = {"bf16": 2, "fp16": 2, "fp8": 1}


def _intensity(p: AttainableParams) -> float:
    return p.flops / p.bytes


def _memory_bound(p: AttainableParams) -> bool:
    # I < peak / bw  <=>  flops * bw < peak * bytes, decided on the exact decimals.
    return exact(p.flops) * exact(p.mem_bw_tbps) < exact(p.peak_tflops) * exact(p.bytes)


def _attainable(p: AttainableParams) -> float:
    # FLOP/B x TB/s = TFLOP/s.
    return min(p.peak_tflops, _intensity(p) * p.mem_bw_tbps)


@register
class RooflineAttainable(Template):
    slug = "roofline-attainable"
    title = "Attainable throughput on the roofline"
    family = "roofline"
    lessons = (
        "inside-a-gpu",
        "prefill-decode-and-the-cost-of-a-token",
        "batching-for-llm-inference",
    )
    skills = ("roofline", "arithmetic-intensity", "memory-vs-compute-bound")
    difficulty = 2
    version = 2
    Params = AttainableParams

    def generate(self, rng: random.Random) -> AttainableParams:
        models = catalog.models()
        while True:
            acc, prec = draw_accelerator(rng, ("bf16", "bf16", "fp8"))
            peak, bw = peak_tflops_of(acc, prec), bw_tbps_of(acc)
            model = rng.choice(models)
            # MLA models have no plain QKV/output projection: draw only their MLP shapes.
            _, shape = rng.choice(_GEMMS[:2] if model.kv_lora_rank is not None else _GEMMS)
            k, n = shape(model)
            m = rng.choice(_TOKENS)
            b = _GEMM_BYTES[prec]
            flops = 2 * m * k * n
            moved = b * (m * k + k * n + m * n)
            # Keep clear of the ridge so "the other roof" is never within 1% of the answer.
            over = (flops / moved) / (peak / bw)
            if 0.95 < over < 1.05:
                continue
            # Compute-bound below the sparse ridge: the sparse roof would be I x B.
            ratio = sparse_ratio(matching_accelerators(peak, bw))
            if ratio is not None and 1 <= over < ratio * 1.05:
                continue
            return AttainableParams(
                peak_tflops=peak, mem_bw_tbps=bw, flops=float(flops), bytes=float(moved)
            )

    def solve(self, p: AttainableParams) -> dict[str, Part]:
        bound = "memory" if _memory_bound(p) else "compute"
        return {
            "intensity": Part("intensity", _intensity(p), "FLOP/B", label="Arithmetic intensity"),
            "attainable": Part(
                "attainable", _attainable(p), "TFLOP/s", label="Attainable throughput"
            ),
            "bound": Part(
                "bound",
                bound,
                kind=Kind.CHOICE,
                tolerance=Exact(),
                choices=("memory", "compute"),
                label="Limited by",
            ),
        }

    def statement(self, p: AttainableParams) -> str:
        gpu, note = describe_gpu(p.peak_tflops, p.mem_bw_tbps, p.flops, p.bytes)
        return (
            f"{gpu}{note}\n\n"
            f"A kernel (for example one matrix multiply of a transformer layer) performs "
            f"$F = {tex(p.flops, 15)}$ floating-point operations and moves "
            f"$Q = {tex(p.bytes, 15)}$ bytes to and from HBM. Use the simple roofline "
            "model: no caches, perfect overlap of compute and memory traffic.\n\n"
            "1. What is its arithmetic intensity, in FLOP/B?\n"
            "2. What throughput can it attain at best, in TFLOP/s?\n"
            "3. Is it **memory**-bound or **compute**-bound? (Exactly at the ridge point "
            "counts as compute-bound.)"
        )

    def solution(self, p: AttainableParams) -> str:
        intensity = _intensity(p)
        ridge = p.peak_tflops / p.mem_bw_tbps
        bound = "memory" if _memory_bound(p) else "compute"
        relation = "below" if bound == "memory" else "at or above"
        hits = matching_accelerators(p.peak_tflops, p.mem_bw_tbps)
        sparse = quotes_sparse(hits, p.peak_tflops, p.mem_bw_tbps, p.flops, p.bytes)
        return halving_note(sparse, p.peak_tflops) + (
            "Intensity is FLOP per byte moved:\n\n"
            + step(INTENSITY, {"F": p.flops, "Q": p.bytes}, intensity, "FLOP/B")
            + "\n\nThe attainable rate is the lower of the two roofs, "
            f"{roofs(p.peak_tflops, p.mem_bw_tbps)} times the intensity; FLOP/B times TB/s "
            "is TFLOP/s:\n\n"
            + step(
                ATTAINABLE,
                {"P": p.peak_tflops, "I": intensity, "B": p.mem_bw_tbps},
                _attainable(p),
                "TFLOP/s",
            )
            + f"\n\nThe ridge point is ${tex(p.peak_tflops, 12)} / {tex(p.mem_bw_tbps, 12)} = "
            f"{tex(ridge)}$ FLOP/B. The kernel's intensity is {relation} it, so it is "
            f"**{bound}-bound**."
        )

    def misconceptions(self, p: AttainableParams) -> list[Misconception]:
        intensity = _intensity(p)
        attainable = _attainable(p)
        memory = _memory_bound(p)
        out: list[Misconception] = []
        if abs(1 / intensity - intensity) > 0.02 * intensity:
            out.append(
                Misconception(
                    "inverted-intensity",
                    "intensity",
                    p.bytes / p.flops,
                    "That is bytes per FLOP. Arithmetic intensity is FLOP divided by bytes moved.",
                )
            )
        if memory:
            out.append(
                Misconception(
                    "wrong-roof",
                    "attainable",
                    p.peak_tflops,
                    "That is the compute peak, but this kernel cannot feed it: at this "
                    "intensity the memory bandwidth caps it at intensity x bandwidth.",
                )
            )
        else:
            out.append(
                Misconception(
                    "wrong-roof",
                    "attainable",
                    intensity * p.mem_bw_tbps,
                    "Intensity x bandwidth is more than the chip can compute. Above the "
                    "ridge point the compute peak is the limit.",
                )
            )
            ratio = sparse_ratio(matching_accelerators(p.peak_tflops, p.mem_bw_tbps))
            sparse = min(p.peak_tflops * (ratio or 1), intensity * p.mem_bw_tbps)
            if sparse > attainable * 1.01:
                out.append(
                    Misconception(
                        "sparse-peak",
                        "attainable",
                        sparse,
                        "That uses the 2:4 sparsity headline as the compute roof; a dense "
                        "kernel's roof is the dense peak.",
                    )
                )
        out.append(
            Misconception(
                "bound-reversed",
                "bound",
                "compute" if memory else "memory",
                "Compare the intensity with the ridge point (peak / bandwidth): below it the "
                "kernel waits on memory, at or above it the kernel waits on the math units.",
            )
        )
        return out
