"""nccl-tests-readout: burn-in of a few 8-GPU HGX nodes with nccl-tests' single-node
all_reduce_perf: which node fails acceptance, and the longest 4 GiB all-reduce time the
bus-bandwidth rule allows.

Each node's output follows the published format (the `# nThread` header, `# Using
devices` with one `#  Rank` line per GPU, the out-of-place / in-place table with size,
count, type, redop, root, time, algbw, busbw and #wrong, then `# Out of bounds values`
and `# Avg bus bandwidth`). A node's row times follow time = latency + size / algbw_peak,
algbw_peak = busbw_peak x n / (2(n-1)), the in-place column within 1.5% of the
out-of-place one; algbw and busbw are printed from the printed time, as nccl-tests
derives them (busbw = algbw x 2(n-1)/n, n = 8 ranks).

Realism, as the generator enforces it:

- GPUs with NVSwitch boxes where NCCL uses NVLink SHARP by default: A100 (no NVLS, ring
  over NVLink 3: healthy busbw 225-236 GB/s of the 300 GB/s per direction) and H100 /
  H200 (NVLS: healthy 462-485 GB/s, the ~480 GB/s NCCL's developers quote for 8 x H100,
  and 475 GB/s measured on 8 x H200, NVIDIA/nccl-tests issues 212 and 272). B200 is
  left out: no published single-node figure was at hand to calibrate it.
- The acceptance threshold is 200-215 GB/s (A100) or 420-450 GB/s (Hopper). A slow node
  reaches 60-88% of the threshold; healthy nodes stay above it. 1 MiB latencies are
  28-45 us, and in about half the variants one healthy node shows 1.6-2.2 times the
  others' small-message time, a decoy that does not matter for bandwidth acceptance.
- Exactly one planted fault or none: a slow node (45%), a node whose out-of-place
  results at the two largest sizes report wrong elements (#wrong > 0, "Out of bounds
  values : N FAILED") at normal bandwidth (30%), or no fault (25%).

Misconceptions named: on the time, algbw compared with the busbw threshold (busbw-as-
algbw), a factor of 2 instead of 2(n-1)/n (factor-two), the factor applied twice, which
doubles the time (allreduce-factor-doubled), one ring phase's (n-1)/n instead of both,
which halves it (one-phase-factor), and 4 GB for 4 GiB (gb-vs-gib); without the two
middle ones a doubled or halved time fell to the grader's generic "wrong bytes per
element" hint, and no element size is asked for here; on the node, the node with the
slowest small-message time (latency-decoy), "none" when the only fault is wrong data
(ignored-wrong-column), and the slowest node when every node passes or the fault is
wrong data (slowest-but-passing).
"""

from __future__ import annotations

import random
import zlib
from typing import Annotated, Literal

from pydantic import Field, model_validator

from problems.engine.numbers import sig
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates.fabric._family import (
    BUS_IDS,
    NCCL_HEADER,
    SMI_NAME,
    fmt_us,
    keep_apart,
    printed_us,
)

GpuSlug = Literal["a100-sxm-80gb", "h100-sxm", "h200"]
HEALTHY = {"a100-sxm-80gb": (225.0, 236.0), "h100-sxm": (462.0, 485.0), "h200": (462.0, 485.0)}
THRESHOLDS = {"a100-sxm-80gb": (200, 210, 215), "h100-sxm": (420, 430, 440, 450)}
THRESHOLDS["h200"] = THRESHOLDS["h100-sxm"]
RANKS = 8
SIZES = tuple(2**20 * 8**i for i in range(5))  # 1 MiB .. 4 GiB, -f 8
BIG = SIZES[-1]
GBps = Annotated[float, Field(gt=0, le=5000)]
Micro = Annotated[float, Field(gt=0, le=10_000)]


class NcclReadoutParams(Params):
    gpu: GpuSlug
    first_node: int = Field(ge=1, le=999)
    busbw_peak: tuple[GBps, ...] = Field(min_length=2, max_length=6)
    latency_us: tuple[Micro, ...] = Field(min_length=2, max_length=6)
    wrong_node: int = Field(ge=-1, le=5)
    wrong_count: int = Field(ge=0, le=10**9)
    threshold_gbps: float = Field(gt=0, le=5000)

    @model_validator(mode="after")
    def _one_fault(self) -> NcclReadoutParams:
        if len(self.latency_us) != len(self.busbw_peak):
            raise ValueError("one latency and one busbw peak per node")
        if self.wrong_node >= len(self.busbw_peak):
            raise ValueError("wrong_node names no node")
        if (self.wrong_node >= 0) != (self.wrong_count > 0):
            raise ValueError("a node with wrong data needs a nonzero wrong_count, and only then")
        if len(failing(self)) > 1:
            raise ValueError("at most one node may fail acceptance")
        return self


def node_names(p: NcclReadoutParams) -> list[str]:
    return [f"gpu-node{p.first_node + i:02d}" for i in range(len(p.busbw_peak))]


def factor() -> float:
    return 2 * (RANKS - 1) / RANKS


def row_times(p: NcclReadoutParams, i: int, size: int) -> tuple[float, float]:
    """(out-of-place, in-place) printed times in us for node i at one size."""
    algbw = p.busbw_peak[i] / factor() * 1e9
    t = p.latency_us[i] + size / algbw * 1e6
    jitter = zlib.crc32(f"{i}:{size}".encode()) % 301 / 10_000 - 0.015
    return printed_us(t), printed_us(t * (1 + jitter))


def bandwidths(size: int, us: float) -> tuple[float, float]:
    algbw = size / us / 1e3
    return algbw, algbw * factor()


def big_busbw(p: NcclReadoutParams, i: int) -> float:
    """Out-of-place busbw at 4 GiB as printed (2 decimals)."""
    return round(bandwidths(BIG, row_times(p, i, BIG)[0])[1], 2)


def failing(p: NcclReadoutParams) -> list[int]:
    return [
        i
        for i in range(len(p.busbw_peak))
        if i == p.wrong_node or big_busbw(p, i) < p.threshold_gbps
    ]


def wrong_at(p: NcclReadoutParams, i: int, size: int) -> int:
    """#wrong printed out-of-place: the faulty node's two largest sizes share the count."""
    if i != p.wrong_node or size < SIZES[-2]:
        return 0
    return p.wrong_count if size == BIG else max(1, p.wrong_count // 3)


def node_output(p: NcclReadoutParams, i: int) -> str:
    name = node_names(p)[i]
    pid = 41_000 + zlib.crc32(name.encode()) % 20_000
    lines = [
        f"# nThread 1 nGpus {RANKS} minBytes {SIZES[0]} maxBytes {BIG} step: 8(factor) "
        "warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0",
        "#",
        "# Using devices",
    ]
    for r, bus in enumerate(BUS_IDS[p.gpu]):
        lines.append(
            f"#  Rank {r:2d} Group  0 Pid {pid:6d} on {name} device {r:2d} "
            f"[0000:{bus}:00] {SMI_NAME[p.gpu]}"
        )
    lines += ["#", NCCL_HEADER]
    total_bw, wrong_total = 0.0, 0
    for size in SIZES:
        cells = f"{size:12d}  {size // 4:12d}  {'float':>8s}  {'sum':>6s}  {-1:6d}"
        for place, us in enumerate(row_times(p, i, size)):
            algbw, busbw = bandwidths(size, us)
            wrong = wrong_at(p, i, size) if place == 0 else 0
            wrong_total += wrong
            total_bw += busbw
            cells += f"  {fmt_us(us):>7s}  {algbw:6.2f}  {busbw:6.2f}  {wrong:5d}"
        lines.append(cells)
    verdict = "OK" if wrong_total == 0 else "FAILED"
    lines.append(f"# Out of bounds values : {wrong_total} {verdict}")
    lines.append(f"# Avg bus bandwidth    : {total_bw / (2 * len(SIZES)):g} ")
    return "\n".join(lines)


T_MAX = formula(
    r"t_{\max}",
    lambda s: s.S * 2 * (s.n - 1) / (s.n * s.B),
    S="S",
    n="n",
    B=r"B_{\mathrm{bus}}",
)


@register
class NcclTestsReadout(Template):
    slug = "nccl-tests-readout"
    title = "Burn-in with nccl-tests: which node fails?"
    family = "fabric"
    lessons = (
        "bring-up-validation",
        "troubleshooting-gpu-clusters",
        "ai-networking-infiniband-roce",
        "gpu-monitoring-observability",
    )
    skills = ("nccl-tests", "bus-bandwidth", "cluster-acceptance", "incident-triage")
    difficulty = 3
    version = 1
    Params = NcclReadoutParams

    def generate(self, rng: random.Random) -> NcclReadoutParams:
        gpu = rng.choice(("a100-sxm-80gb", "h100-sxm", "h100-sxm", "h200"))
        while True:
            n = rng.choice((3, 3, 4))
            threshold = rng.choice(THRESHOLDS[gpu])
            lo, hi = HEALTHY[gpu]
            peaks = [round(rng.uniform(lo, hi), 1) for _ in range(n)]
            lats = [round(rng.uniform(28, 45), 1) for _ in range(n)]
            fault, bad = rng.random(), rng.randrange(n)
            wrong_node, wrong_count = -1, 0
            if fault < 0.45:
                peaks[bad] = round(threshold * rng.uniform(0.6, 0.88), 1)
            elif fault < 0.75:
                wrong_node, wrong_count = bad, rng.randint(1, 40_000)
            if rng.random() < 0.5:
                decoy = rng.choice([k for k in range(n) if k != bad])
                lats[decoy] = round(lats[decoy] * rng.uniform(1.6, 2.2), 1)
            p = NcclReadoutParams(
                gpu=gpu,
                first_node=rng.randint(1, 60),
                busbw_peak=tuple(peaks),
                latency_us=tuple(lats),
                wrong_node=wrong_node,
                wrong_count=wrong_count,
                threshold_gbps=float(threshold),
            )
            if len(failing(p)) == (0 if fault >= 0.75 else 1):
                return p

    def _answer(self, p: NcclReadoutParams) -> str:
        bad = failing(p)
        return node_names(p)[bad[0]] if bad else "none"

    def _t_max_ms(self, p: NcclReadoutParams, size: float = BIG, f: float | None = None) -> float:
        return size * (factor() if f is None else f) / (p.threshold_gbps * 1e9) * 1e3

    def solve(self, p: NcclReadoutParams) -> dict[str, Part]:
        return {
            "t_max": Part("t_max", self._t_max_ms(p), "ms", label="Longest passing 4 GiB time"),
            "node": Part(
                "node",
                self._answer(p),
                kind=Kind.CHOICE,
                tolerance=Exact(),
                choices=(*node_names(p), "none"),
                label="Node that fails acceptance",
            ),
        }

    def statement(self, p: NcclReadoutParams) -> str:
        names = node_names(p)
        blocks = "\n\n".join(
            f"$ ssh {name} /opt/nccl-tests/build/all_reduce_perf -b 1M -e 4G -f 8 -g 8\n"
            + node_output(p, i)
            for i, name in enumerate(names)
        )
        return (
            f"You are burning in {len(names)} new HGX nodes, each with 8 x {SMI_NAME[p.gpu]} "
            "on NVSwitch. On each node you run the single-node all-reduce test of nccl-tests "
            "(NCCL defaults, 8 GPUs driven by one process):\n\n"
            f"```text\n{blocks}\n```\n\n"
            "The acceptance rule for a node is: out-of-place bus bandwidth of at least "
            f"{sig(p.threshold_gbps)} GB/s on the 4 GiB (4294967296-byte) all-reduce, and "
            "no wrong elements anywhere.\n\n"
            "1. A script checks nodes by the time column only. What is the longest "
            "out-of-place time for the 4 GiB all-reduce on 8 ranks that still meets the "
            "bandwidth rule, in ms?\n"
            f"2. Which node fails acceptance? Answer with its name ({', '.join(names)}), "
            "or none."
        )

    def solution(self, p: NcclReadoutParams) -> str:
        f = factor()
        t = self._t_max_ms(p)
        names = node_names(p)
        rows = "; ".join(
            f"{name} {fmt_us(row_times(p, i, BIG)[0])} us, busbw {big_busbw(p, i):.2f} GB/s"
            for i, name in enumerate(names)
        )
        answer = self._answer(p)
        if answer == "none":
            why = "every node meets the bandwidth rule and reports 0 wrong elements: **none**."
        elif failing(p)[0] == p.wrong_node:
            why = (
                f"**{answer}** reaches the bandwidth but its #wrong column is not zero "
                f"(Out of bounds values: FAILED): the reduction returned wrong data, which "
                "fails the node whatever its speed (suspect a GPU, its memory or NVLink)."
            )
        else:
            why = (
                f"**{answer}** takes longer than {sig(t * 1000, 5)} us, so its busbw is "
                f"below {sig(p.threshold_gbps)} GB/s at every size that matters (a "
                "degraded NVLink, a GPU whose links trained down, or NVLink SHARP not "
                "in use are the usual suspects)."
            )
        return (
            "nccl-tests prints algbw = size / time and busbw = algbw x 2(n-1)/n: a ring "
            "all-reduce moves 2(n-1)/n times the buffer through each GPU, and busbw is "
            "what is compared with a bandwidth target. A busbw of $B_{\\mathrm{bus}}$ on "
            "$S$ bytes therefore takes $t = S \\cdot 2(n-1) / (n B_{\\mathrm{bus}})$, and "
            "the rule allows at most\n\n"
            + step(
                T_MAX,
                {"S": "2^{32}", "n": RANKS, "B": f"{sig(p.threshold_gbps)} \\times 10^{{9}}"},
                f"{sig(t / 1000, 6)}",
                "s",
            )
            + f"\n\nthat is **{sig(t, 6)} ms** ($2(n-1)/n = {sig(f)}$ with 8 ranks; the "
            "size is $2^{32}$ bytes, not $4 \\times 10^{9}$).\n\n"
            f"At 4 GiB the nodes print: {rows}. Small-message times only show latency and "
            "say nothing about bandwidth; " + why
        )

    def misconceptions(self, p: NcclReadoutParams) -> list[Misconception]:
        names = node_names(p)
        answer = self._answer(p)
        out = [
            Misconception(
                "busbw-as-algbw",
                "t_max",
                self._t_max_ms(p, f=1.0),
                "That treats the threshold as algbw (size / time). The rule is on busbw, "
                f"which is algbw x 2(n-1)/n = algbw x {sig(factor())} for 8 ranks.",
            ),
            Misconception(
                "factor-two",
                "t_max",
                self._t_max_ms(p, f=2.0),
                "The all-reduce factor is 2(n-1)/n, not 2: with 8 ranks it is 1.75.",
            ),
            Misconception(
                "allreduce-factor-doubled",
                "t_max",
                2 * self._t_max_ms(p),
                "That is twice the time: 2(n-1)/n already counts both phases of the ring "
                "(a reduce-scatter, then an all-gather, each moving (n-1)/n of the buffer), "
                "so doubling it counts them twice.",
            ),
            Misconception(
                "one-phase-factor",
                "t_max",
                self._t_max_ms(p, f=(RANKS - 1) / RANKS),
                "That uses (n-1)/n, the factor of one ring phase (a reduce-scatter or an "
                "all-gather alone). An all-reduce runs both: 2(n-1)/n.",
            ),
            Misconception(
                "gb-vs-gib",
                "t_max",
                self._t_max_ms(p, size=4e9),
                "The 4 GiB row is 4294967296 bytes (2^32), not 4 x 10^9.",
            ),
        ]
        small = [row_times(p, i, SIZES[0])[0] for i in range(len(names))]
        slowest_small = names[small.index(max(small))]
        out.append(
            Misconception(
                "latency-decoy",
                "node",
                slowest_small,
                "That node is only slower on the smallest message, which measures latency. "
                "Acceptance is on the 4 GiB bus bandwidth and the #wrong columns.",
            )
        )
        if p.wrong_node >= 0:
            out.append(
                Misconception(
                    "ignored-wrong-column",
                    "node",
                    "none",
                    f"Every node reaches the bandwidth, but {answer} reports wrong elements "
                    "in the #wrong column (Out of bounds values: FAILED): wrong data fails "
                    "a node however fast it is.",
                )
            )
        if answer == "none" or p.wrong_node >= 0:
            bws = [big_busbw(p, i) for i in range(len(names))]
            out.append(
                Misconception(
                    "slowest-but-passing",
                    "node",
                    names[bws.index(min(bws))],
                    "That node is the slowest of the group, but its 4 GiB busbw is still "
                    f"above {sig(p.threshold_gbps)} GB/s: it passes.",
                )
            )
        return keep_apart(self.solve(p), out)
