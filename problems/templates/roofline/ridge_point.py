"""roofline-ridge: the arithmetic intensity where the bandwidth roof meets the compute
roof, peak over bandwidth.

Realism: every variant is a catalog part at a precision it publishes a dense peak for,
with its own HBM bandwidth. Convention examined: where the part has a 2:4 sparse figure,
most variants quote only that datasheet headline, marked as sparse, and the learner
halves it (roofline/_family.py); the sparse-peak slip is then the headline taken as is.
"""

from __future__ import annotations

import random

from pydantic import Field

from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template
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


class RidgeParams(Params):
    peak_tflops: float = Field(gt=0, le=1e6)
    mem_bw_tbps: float = Field(gt=0, le=1e4)


RIDGE = formula(r"I^{*}", lambda s: s.P / s.B, P=r"P_{\mathrm{peak}}", B=r"B_{\mathrm{mem}}")


def _ridge(p) -> float:
    # TFLOP/s over TB/s: the 10^12 cancels, leaving FLOP per byte.
    return p.peak_tflops / p.mem_bw_tbps


@register
class RooflineRidge(Template):
    slug = "roofline-ridge"
    title = "The ridge point of the roofline"
    family = "roofline"
    lessons = (
        "inside-a-gpu",
        "the-accelerator-landscape",
        "prefill-decode-and-the-cost-of-a-token",
    )
    skills = ("roofline", "arithmetic-intensity", "dense-vs-sparse-flops")
    difficulty = 1
    version = 2
    Params = RidgeParams

    def generate(self, rng: random.Random) -> RidgeParams:
        acc, prec = draw_accelerator(rng, ("bf16", "bf16", "fp8", "fp16", "tf32", "fp4"))
        return RidgeParams(peak_tflops=peak_tflops_of(acc, prec), mem_bw_tbps=bw_tbps_of(acc))

    def solve(self, p: RidgeParams) -> dict[str, Part]:
        return {"ridge": Part("ridge", _ridge(p), "FLOP/B", label="Ridge point")}

    def statement(self, p: RidgeParams) -> str:
        gpu, note = describe_gpu(p.peak_tflops, p.mem_bw_tbps, dense_one_in=8)
        return (
            f"{gpu}{note}\n\n"
            "At what arithmetic intensity does a kernel stop being limited by memory "
            "bandwidth and start being limited by compute? Give the ridge point of the "
            "roofline in FLOP/B (FLOP per byte moved to or from memory)."
        )

    def solution(self, p: RidgeParams) -> str:
        sparse = quotes_sparse(
            matching_accelerators(p.peak_tflops, p.mem_bw_tbps),
            p.peak_tflops,
            p.mem_bw_tbps,
            dense_one_in=8,
        )
        return halving_note(sparse, p.peak_tflops) + (
            f"The two roofs, {roofs(p.peak_tflops, p.mem_bw_tbps)}, meet at the intensity $I$ "
            "where $I \\times B_{\\mathrm{mem}} = P_{\\mathrm{peak}}$. "
            "TFLOP/s over TB/s leaves FLOP per byte, because the $10^{12}$ cancels:\n\n"
            + step(RIDGE, {"P": p.peak_tflops, "B": p.mem_bw_tbps}, _ridge(p), "FLOP/B")
            + "\n\nA kernel doing fewer FLOP than this per byte is memory-bound on this part."
        )

    def misconceptions(self, p: RidgeParams) -> list[Misconception]:
        ridge = _ridge(p)
        ratio = sparse_ratio(matching_accelerators(p.peak_tflops, p.mem_bw_tbps))
        out = []
        if ratio is not None:
            out.append(
                Misconception(
                    "sparse-peak",
                    "ridge",
                    ridge * ratio,
                    "That uses the sparsity headline. Datasheets quote 2:4 structured-sparsity "
                    "throughput, which dense kernels never reach; the roofline uses the dense "
                    "peak.",
                )
            )
        out += [
            Misconception(
                "inverted-ridge",
                "ridge",
                p.mem_bw_tbps / p.peak_tflops,
                "That is bandwidth over compute (bytes per FLOP). The ridge point is peak "
                "FLOP/s divided by bytes/s.",
            ),
            Misconception(
                "unit-scale",
                "ridge",
                ridge / 1000,
                "Off by 1000: TFLOP/s was divided by GB/s. Put both in the same prefix "
                "(TFLOP/s over TB/s) so the powers of ten cancel.",
            ),
        ]
        return out
