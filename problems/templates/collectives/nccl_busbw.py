"""nccl-busbw: reading an nccl-tests row, algbw = size / time and busbw = algbw times
the collective's factor, exactly as nccl-tests' doc/PERFORMANCE.md defines them.
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field
from sympy import UnevaluatedExpr

from hardware_db import catalog
from problems.engine.numbers import sig
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import FactorHints, Misconception, Params, Part, Template
from problems.templates._common import (
    tex15,
)
from problems.templates.collectives._family import (
    GB,
)

Collective = Literal[
    "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall"
]

COLLECTIVES: tuple[str, ...] = (
    "all_reduce",
    "all_gather",
    "reduce_scatter",
    "broadcast",
    "reduce",
    "alltoall",
)


class BusBwParams(Params):
    collective: Collective
    n_gpus: int = Field(ge=1, le=1_000_000)
    size_bytes: float = Field(gt=0, le=1e15)
    time_us: float = Field(gt=0, le=1e12)


def _busbw_factor(collective: str, n: int) -> float:
    """nccl-tests doc/PERFORMANCE.md: the factor that turns algbw into bus bandwidth."""
    if collective == "all_reduce":
        return 2 * (n - 1) / n
    if collective in ("all_gather", "reduce_scatter", "alltoall"):
        return (n - 1) / n
    return 1.0


ALGBW = formula(r"\mathrm{algbw}", lambda s: s.S / s.t, S="S", t="t")
_BUSBW_EXPR = {
    "all_reduce": lambda s: s.A * 2 * UnevaluatedExpr(s.n - 1) / s.n,
    "ring": lambda s: s.A * UnevaluatedExpr(s.n - 1) / s.n,
    "one": lambda s: s.A * 1,
}
BUSBW = {
    key: formula(r"\mathrm{busbw}", build, A=r"\mathrm{algbw}", n="n")
    for key, build in _BUSBW_EXPR.items()
}
_FORMULA_KEY = {
    "all_reduce": "all_reduce",
    "all_gather": "ring",
    "reduce_scatter": "ring",
    "alltoall": "ring",
    "broadcast": "one",
    "reduce": "one",
}
_WHY = {
    "all_reduce": "An all-reduce moves each byte twice around the ring (reduce-scatter, then "
    "all-gather), so nccl-tests scales algbw by $2(n-1)/n$.",
    "all_gather": "In an all-gather each rank must receive the $n-1$ pieces it lacks, so "
    "nccl-tests scales algbw by $(n-1)/n$ (the size is the whole gathered buffer).",
    "reduce_scatter": "In a reduce-scatter each rank sends away the $n-1$ pieces it does not keep, "
    "so nccl-tests scales algbw by $(n-1)/n$ (the size is the whole input buffer).",
    "alltoall": "In an all-to-all each rank keeps $1/n$ of its data and exchanges the other "
    "$n-1$ pieces, so nccl-tests scales algbw by $(n-1)/n$.",
    "broadcast": "A broadcast (pipelined along a chain) moves the buffer across each link once, "
    "so nccl-tests uses busbw = algbw.",
    "reduce": "A reduce (pipelined along a chain) moves the buffer across each link once, "
    "so nccl-tests uses busbw = algbw.",
}


@register
class NcclBusBw(Template):
    slug = "nccl-busbw"
    title = "Reading nccl-tests: algorithm and bus bandwidth"
    family = "collectives"
    lessons = (
        "bring-up-validation",
        "ai-networking-infiniband-roce",
        "gpu-monitoring-observability",
    )
    skills = ("nccl-tests", "bus-bandwidth", "collective-algorithms")
    difficulty = 2
    Params = BusBwParams

    def generate(self, rng: random.Random) -> BusBwParams:
        collective = rng.choice(COLLECTIVES)
        if rng.random() < 0.5:
            link = rng.choice([li for li in catalog.links() if li.kind == "scale-up"])
            n = rng.choice((2, 4, 8, 8, 8))
            overhead_us = rng.choice((8, 10, 15))
        else:
            link = rng.choice(
                [
                    li
                    for li in catalog.links()
                    if li.kind == "scale-out" and li.slug.startswith(("infiniband", "roce"))
                ]
            )
            n = rng.choice((16, 32, 64, 128, 256, 512))
            overhead_us = rng.choice((20, 30, 50))
        size = 2 ** rng.randint(20, 34)
        efficiency = rng.uniform(0.55, 0.93)
        busbw = link.bw_bytes_per_s_per_direction * efficiency
        seconds = size * _busbw_factor(collective, n) / busbw
        time_us = round(seconds * 1e6 + overhead_us, 1)
        return BusBwParams(collective=collective, n_gpus=n, size_bytes=size, time_us=time_us)

    def _algbw(self, p: BusBwParams) -> float:
        return p.size_bytes / (p.time_us * 1e-6) / GB

    def solve(self, p: BusBwParams) -> dict[str, Part]:
        algbw = self._algbw(p)
        busbw = algbw * _busbw_factor(p.collective, p.n_gpus)
        return {
            "algbw": Part("algbw", algbw, "GB/s", label="Algorithm bandwidth"),
            "busbw": Part("busbw", busbw, "GB/s", label="Bus bandwidth"),
        }

    def statement(self, p: BusBwParams) -> str:
        size_note = ""
        if p.collective in ("all_gather", "reduce_scatter", "alltoall"):
            size_note = (
                " (for this test the size column is the whole buffer, all ranks' pieces together)"
            )
        return (
            f"You validate a cluster with nccl-tests' `{p.collective}_perf` on $n = {p.n_gpus}$ "
            f"GPUs. The row for size $S = {tex15(p.size_bytes)}$ bytes{size_note} "
            f"reports an out-of-place time of $t = {tex15(p.time_us)}$ µs.\n\n"
            "Compute the two bandwidths nccl-tests prints for that row, in GB/s "
            "(1 GB/s $= 10^{9}$ bytes/s):\n\n"
            "1. **algbw**, the algorithm bandwidth;\n"
            "2. **busbw**, the bus bandwidth, which nccl-tests defines so that it can be compared "
            "with the hardware's link speed whatever the number of ranks."
        )

    def solution(self, p: BusBwParams) -> str:
        algbw = self._algbw(p)
        factor = _busbw_factor(p.collective, p.n_gpus)
        text = (
            f"Algorithm bandwidth is the size over the time, with $t = {tex15(p.time_us * 1e-6)}$ "
            "s:\n\n"
            + step(ALGBW, {"S": tex15(p.size_bytes), "t": p.time_us * 1e-6}, algbw * GB, "B/s")
            + f"\n\nthat is **{sig(algbw, 6)} GB/s**. {_WHY[p.collective]}"
        )
        if factor == 1:
            return text + f" So busbw is also **{sig(algbw, 6)} GB/s**."
        return (
            text
            + "\n\n"
            + step(
                BUSBW[_FORMULA_KEY[p.collective]],
                {"A": algbw, "n": p.n_gpus},
                algbw * factor,
                "GB/s",
            )
        )

    def misconceptions(self, p: BusBwParams) -> list[Misconception]:
        algbw = self._algbw(p)
        n = p.n_gpus
        factor = _busbw_factor(p.collective, n)
        busbw = algbw * factor
        gib = GB / 2**30
        out = [
            Misconception(
                "gb-vs-gib",
                "algbw",
                algbw * gib,
                "That is in GiB/s. The question asks for GB/s: 10^9 bytes per second.",
            ),
            Misconception(
                "unit-scale",
                "algbw",
                algbw / 1000,
                "That is off by 1000: the time is in microseconds (10^-6 s), not milliseconds.",
            ),
            Misconception(
                "bits-vs-bytes",
                "algbw",
                algbw * 8,
                "That is in gigabits per second. nccl-tests reports bytes per second.",
            ),
            Misconception(
                "gb-vs-gib",
                "busbw",
                busbw * gib,
                "That is in GiB/s. The question asks for GB/s: 10^9 bytes per second.",
            ),
            Misconception(
                "busbw-factor-omitted",
                "busbw",
                algbw,
                "That is the algorithm bandwidth. Bus bandwidth scales it by the share of the "
                f"data each rank really moves for {p.collective}.",
            ),
        ]
        if factor:  # a single rank moves nothing: there is no factor to invert
            out.append(
                Misconception(
                    "busbw-factor-inverted",
                    "busbw",
                    algbw / factor,
                    "That divides by the factor. Bus bandwidth is algbw multiplied by it.",
                )
            )
        if p.collective == "all_reduce":
            out.append(
                Misconception(
                    "allreduce-factor",
                    "busbw",
                    algbw * (n - 1) / n,
                    "That is the all-gather factor (n-1)/n. An all-reduce is a reduce-scatter "
                    "plus an all-gather, so its factor is 2(n-1)/n.",
                )
            )
        else:
            out.append(
                Misconception(
                    "allreduce-factor",
                    "busbw",
                    algbw * 2 * (n - 1) / n,
                    f"That applies the all-reduce factor 2(n-1)/n; {p.collective} moves the data "
                    f"only once, so its factor is {'(n-1)/n' if factor != 1 else '1'}.",
                )
            )
        return out

    def factor_hints(self, p: BusBwParams) -> FactorHints:
        return FactorHints(ranks=p.n_gpus)
