"""nccl-busbw: reading an nccl-tests row, algbw = size / time and busbw = algbw times
the collective's factor, exactly as nccl-tests' doc/PERFORMANCE.md defines them.

Realism and discrimination, as the generator enforces them:

- Ranks are 4 or 8 GPUs in one node (NVLink 3, 4 or 5) or 16 to 64 GPUs in 8-GPU nodes
  over one InfiniBand or RoCE NIC per GPU; the time is what busbw at 55-93% of that link's
  per-direction peak, plus a launch overhead, gives, printed the way nccl-tests prints
  it (2 decimals below 100 µs, 1 below 10,000 µs, none above).
- n is never 2 and never above 64: at n = 2 the all-reduce factor 2(n-1)/n is 1, and
  above 64 the (n-1)/n factor comes within 1.5% of 1, so algbw would pass for busbw (and
  2(n-1)/n for 2, masking a bytes-per-parameter slip).
- In about half the variants (from a hash of the parameters) the statement quotes the
  row as nccl-tests prints it (size, count of floats, type, redop, root, time) with the
  two bandwidth columns blanked, as in ../shared/spec/tool-output/nccl-tests.
"""

from __future__ import annotations

import random
import zlib
from typing import Literal

from pydantic import Field

from hardware_db import catalog
from problems.engine.numbers import sig
from problems.engine.registry import register
from problems.engine.solutions import formula, sp, step
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


SCALE_OUT_RANKS = (16, 32, 64)
_ROOTED = ("broadcast", "reduce")
_REDUCING = ("all_reduce", "reduce_scatter", "reduce")


def _as_printed(us: float) -> float:
    """A time as nccl-tests prints it: %7.2f below 100 µs, %7.1f below 10,000, else %7.0f."""
    if us >= 10_000:
        return float(round(us))
    return round(us, 1 if us >= 100 else 2)


def _time_text(us: float) -> str:
    if us >= 10_000:
        return f"{us:.0f}"
    return f"{us:.1f}" if us >= 100 else f"{us:.2f}"


def _quotes_row(p: BusBwParams) -> bool:
    """Whether the statement quotes the nccl-tests row (about half, fixed per variant)."""
    key = f"{p.collective}|{p.n_gpus}|{p.size_bytes!r}|{p.time_us!r}"
    return zlib.crc32(key.encode()) % 2 == 0


def _row(p: BusBwParams) -> str | None:
    """The out-of-place part of the row in nccl-tests' layout, or None if not printable."""
    size = p.size_bytes
    if size != int(size) or int(size) % 4:
        return None
    redop = "sum" if p.collective in _REDUCING else "none"
    root = "0" if p.collective in _ROOTED else "-1"
    head = (
        "#       size         count      type   redop    root     time   algbw   busbw\n"
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)\n"
    )
    line = (
        f"{int(size):12d}  {int(size) // 4:12d}  {'float':>8s}  {redop:>6s}  {root:>6s}  "
        f"{_time_text(p.time_us):>7s}  {'??':>6s}  {'??':>6s}"
    )
    return head + line


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
    "all_reduce": lambda s: s.A * 2 * sp.UnevaluatedExpr(s.n - 1) / s.n,
    "ring": lambda s: s.A * sp.UnevaluatedExpr(s.n - 1) / s.n,
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
    version = 2
    Params = BusBwParams

    def generate(self, rng: random.Random) -> BusBwParams:
        collective = rng.choice(COLLECTIVES)
        if rng.random() < 0.5:  # one node: NCCL over NVLink (nccl-tests is NVIDIA's)
            link = rng.choice([li for li in catalog.links() if li.slug.startswith("nvlink")])
            n = rng.choice((4, 8, 8, 8))
            overhead_us = rng.choice((8, 10, 15))
        else:  # 2 to 8 nodes of 8 GPUs, one NIC per GPU
            link = rng.choice(
                [
                    li
                    for li in catalog.links()
                    if li.kind == "scale-out" and li.slug.startswith(("infiniband", "roce"))
                ]
            )
            n = rng.choice(SCALE_OUT_RANKS)
            overhead_us = rng.choice((20, 30, 50))
        size = 2 ** rng.randint(20, 34)
        efficiency = rng.uniform(0.55, 0.93)
        busbw = link.bw_bytes_per_s_per_direction * efficiency
        seconds = size * _busbw_factor(collective, n) / busbw
        time_us = _as_printed(seconds * 1e6 + overhead_us)
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
        row = _row(p) if _quotes_row(p) else None
        where = f"{p.n_gpus // 8} nodes of 8 GPUs" if p.n_gpus % 8 == 0 and p.n_gpus > 8 else ""
        where = f" ({where})" if where else ""
        if row is not None:
            return (
                f"You validate a cluster with nccl-tests' `{p.collective}_perf` on "
                f"$n = {p.n_gpus}$ GPUs{where}. One line of its out-of-place results reads "
                "(in-place columns cut, the two bandwidths blanked):\n\n"
                f"```\n{row}\n```\n\n"
                "nccl-tests' size column is in bytes and its time in microseconds; for "
                "all-gather, reduce-scatter and all-to-all the size is the whole buffer, all "
                "ranks' pieces together.\n\n"
                "Compute the two blanked columns, in GB/s (1 GB/s $= 10^{9}$ bytes/s):\n\n"
                "1. **algbw**, the algorithm bandwidth;\n"
                "2. **busbw**, the bus bandwidth, which nccl-tests defines so that it can be "
                "compared with the hardware's link speed whatever the number of ranks."
            )
        size_note = ""
        if p.collective in ("all_gather", "reduce_scatter", "alltoall"):
            size_note = (
                " (for this test the size column is the whole buffer, all ranks' pieces together)"
            )
        return (
            f"You validate a cluster with nccl-tests' `{p.collective}_perf` on $n = {p.n_gpus}$ "
            f"GPUs{where}. The row for size $S = {tex15(p.size_bytes)}$ bytes{size_note} "
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
            f"Algorithm bandwidth is the size $S = {tex15(p.size_bytes)}$ bytes over the time "
            f"$t = {tex15(p.time_us * 1e-6)}$ s:\n\n"
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
        if _quotes_row(p) and _row(p) is not None:  # the count column is floats, not bytes
            for part, value in (("algbw", algbw), ("busbw", busbw)):
                out.append(
                    Misconception(
                        "count-for-size",
                        part,
                        value / 4,
                        "That divides the count column by the time. The count is in elements "
                        "(floats, 4 bytes each); the bandwidths use the size column, in bytes.",
                    )
                )
        return out

    def factor_hints(self, p: BusBwParams) -> FactorHints:
        return FactorHints(ranks=p.n_gpus)
