"""fleet-from-sweep: size a fleet from measured capacity: a benchmark sweep, a chat SLO, a
peak request rate and the headroom each replica keeps. The per-replica rate is the SLO
row's output throughput over the output tokens per request; replicas = ceil(peak rate /
(utilisation x that rate)).

Realism: the sweep and SLO as sweep-knee-max-seqs draws them (_sweep.py); peak rates give
2-40 replicas; replicas run at 70-85% of their measured rate (headroom for bursts and a
replica down). Discrimination: sizing from the peak-throughput row (peak-row, both parts),
prompt tokens counted into the per-request tokens (prompt-counted), headroom left out
(headroom-ignored) or added to the load instead of taken off the capacity
(headroom-on-load), and rounding down (floor-not-ceil). Replica slips equal to the answer
or to an earlier slip are dropped; the rate's slips are kept 2.5% apart (redraw).
"""

from __future__ import annotations

import math
import random

from pydantic import Field

from problems.engine.numbers import sig, tex
from problems.engine.registry import register
from problems.engine.template import Kind, Misconception, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import drop_close_counts, fenced, parts_separated
from problems.templates.measurement import _sweep
from problems.templates.measurement._sweep import SweepParams, peak_row, slo_row

_UTILS = (70, 75, 80, 85)


class FleetParams(SweepParams):
    peak_rps: float = Field(gt=0, le=1e5)
    max_util_pct: int = Field(gt=0, le=100)


def _rate(p: FleetParams, tok_s: float, per_request: int | None = None) -> float:
    return tok_s / (per_request or p.output_tokens)


def _replicas(p: FleetParams, rate: float, util: float | None = None, load: float = 1.0) -> int:
    u = p.max_util_pct / 100 if util is None else util
    return math.ceil(p.peak_rps * load / (u * rate) - 1e-9)


@register
class FleetFromSweep(Template):
    slug = "fleet-from-sweep"
    title = "A fleet sized from a measured benchmark sweep"
    family = "measurement"
    lessons = ("a-provisional-fleet-plan", "compute-and-capacity", "llm-inference-at-scale")
    skills = ("capacity-planning", "serving-capacity", "latency-throughput-tradeoff")
    difficulty = 3
    Params = FleetParams
    feasibility = _sweep.FEASIBILITY

    def generate(self, rng: random.Random) -> FleetParams:
        while True:
            s = _sweep.draw_sweep(rng)
            if s is None:
                continue
            util = rng.choice(_UTILS)
            rate = slo_row(s)[1] / s.output_tokens
            want = rng.randint(2, 40)
            rps = float(f"{want * util / 100 * rate * rng.uniform(0.75, 0.98):.2g}")
            p = FleetParams(**s.model_dump(), peak_rps=rps, max_util_pct=util)
            solved = self.solve(p)
            if solved["replicas"].value < 2:
                continue
            if parts_separated(
                {"per_replica_rps": solved["per_replica_rps"]}, self.misconceptions(p)
            ):
                return p

    def solve(self, p: FleetParams) -> dict[str, Part]:
        rate = _rate(p, slo_row(p)[1])
        return {
            "per_replica_rps": Part(
                "per_replica_rps", rate, "req/s", label="Requests per second one replica sustains"
            ),
            "replicas": Part(
                "replicas",
                _replicas(p, rate),
                kind=Kind.INTEGER,
                tolerance=Exact(),
                label="Replicas",
            ),
        }

    def statement(self, p: FleetParams) -> str:
        return (
            _sweep.setup_sentence(p)
            + "\n\n"
            + fenced(_sweep.table(p))
            + "\n\nThe chat SLO is p99 TTFT at most "
            f"{p.slo_ttft_ms:,} ms and p99 TPOT at most {p.slo_tpot_ms} ms, so each replica "
            "(one such server) runs at the highest concurrency of the sweep that meets both. "
            f"At peak the service receives {sig(p.peak_rps)} requests/s of this shape, and "
            f"no replica may run above {p.max_util_pct}% of the request rate it sustained in "
            "the benchmark (headroom for bursts and for a replica going down).\n\n"
            "1. How many requests per second does one replica sustain within the SLO?\n"
            "2. How many replicas does the peak need?"
        )

    def solution(self, p: FleetParams) -> str:
        row = slo_row(p)
        rate = _rate(p, row[1])
        u = p.max_util_pct / 100
        n = _replicas(p, rate)
        return (
            f"The highest concurrency within both targets is {row[0]} (p99 TTFT {row[2]:,} "
            f"ms, p99 TPOT {row[3]} ms), where one replica gives {row[1]:,} output tok/s. "
            f"Every request produces $O = {p.output_tokens}$ output tokens, so one replica "
            f"completes $r = {row[1]} / {p.output_tokens} = {tex(rate, 6)}$ requests/s: "
            f"**{sig(rate, 6)} req/s**.\n\n"
            f"At $u = {tex(u)}$ of that, a replica takes $u r = {tex(u * rate, 6)}$ "
            f"requests/s, so the peak of $\\lambda = {tex(p.peak_rps)}$ requests/s needs\n\n"
            f"$$n = \\left\\lceil \\frac{{\\lambda}}{{u r}} \\right\\rceil = \\left\\lceil "
            f"{tex(p.peak_rps / (u * rate), 6)} \\right\\rceil = {n}$$\n\n"
            f"**{n} replicas**."
            + (
                f" Sizing from the peak-throughput row ({peak_row(p)[1]:,} tok/s) would buy "
                "fewer replicas that all run outside the SLO."
                if peak_row(p)[1] != row[1]
                else ""
            )
        )

    def misconceptions(self, p: FleetParams) -> list[Misconception]:
        row, peak = slo_row(p), peak_row(p)
        rate = _rate(p, row[1])
        u = p.max_util_pct / 100
        out: list[Misconception] = []
        if peak[1] != row[1]:
            text = (
                "That sizes from the peak-throughput row, where latency is outside the SLO. "
                f"Use the row that meets it, concurrency {row[0]}."
            )
            out += [
                Misconception("peak-row", "per_replica_rps", _rate(p, peak[1]), text),
                Misconception("peak-row", "replicas", _replicas(p, _rate(p, peak[1])), text),
            ]
        prompt = _rate(p, row[1], p.prompt_tokens + p.output_tokens)
        text = (
            "That divides by prompt and output tokens. The throughput column counts output "
            f"tokens only, {p.output_tokens} per request."
        )
        out += [
            Misconception("prompt-counted", "per_replica_rps", prompt, text),
            Misconception("prompt-counted", "replicas", _replicas(p, prompt), text),
            Misconception(
                "headroom-ignored",
                "replicas",
                _replicas(p, rate, util=1.0),
                f"That runs every replica at 100% of its measured rate; the plan allows "
                f"{p.max_util_pct}%.",
            ),
            Misconception(
                "headroom-on-load",
                "replicas",
                _replicas(p, rate, util=1.0, load=2 - u),
                f"That adds {100 - p.max_util_pct}% to the load. Running at "
                f"{p.max_util_pct}% divides the capacity by {tex(u)} instead.",
            ),
            Misconception(
                "floor-not-ceil",
                "replicas",
                math.floor(p.peak_rps / (u * rate)),
                "That rounds down, leaving the peak short of capacity; round up.",
            ),
        ]
        return drop_close_counts(out, {"replicas": _replicas(p, rate)})
