"""littles-law: average requests in flight (lambda x W) and the replicas whose slots
hold them.

Rates and latencies are an LLM endpoint's (0.5-200 requests/s, 0.4-45 s end to end).
The generator skips lambda = W (numerically): there lambda/W and W/lambda are both 1, so
the two division slips could not be told apart.
"""

from __future__ import annotations

import math
import random

from pydantic import Field

from problems.engine.numbers import exact, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, sp, step
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import (
    drop_close_counts,
)


class LittleParams(Params):
    arrival_rps: float = Field(gt=0, le=1e7)
    latency_s: float = Field(gt=0, le=86_400)
    per_replica_concurrency: int = Field(ge=1, le=1_000_000)


CONCURRENCY = formula("L", lambda s: s.lam * s.W, lam=r"\lambda", W="W")
REPLICAS = formula("r", lambda s: sp.ceiling(s.L / s.c), L="L", c=r"C_{\mathrm{replica}}")
_RATES = (0.5, 1, 2, 3, 4, 5, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 120, 150, 200)
_LATENCIES = (0.4, 0.6, 0.8, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10, 12, 15, 20, 30, 45)
_SLOTS = (4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256)


def _exact_concurrency(p: LittleParams):
    return exact(p.arrival_rps) * exact(p.latency_s)


def _replicas(p: LittleParams) -> int:
    return math.ceil(_exact_concurrency(p) / p.per_replica_concurrency)


@register
class LittlesLaw(Template):
    slug = "littles-law"
    title = "Little's law: requests in flight and replicas"
    family = "serving"
    lessons = ("serving-models", "batching-for-llm-inference", "llm-inference-at-scale")
    skills = ("littles-law", "capacity-planning")
    difficulty = 1
    version = 2  # 2: lambda = W no longer drawn (issue #11)
    Params = LittleParams

    def generate(self, rng: random.Random) -> LittleParams:
        while True:
            p = LittleParams(
                arrival_rps=float(rng.choice(_RATES)),
                latency_s=float(rng.choice(_LATENCIES)),
                per_replica_concurrency=rng.choice(_SLOTS),
            )
            if 2 <= _replicas(p) <= 60 and not math.isclose(
                p.arrival_rps, p.latency_s, rel_tol=0.05
            ):
                return p

    def solve(self, p: LittleParams) -> dict[str, Part]:
        return {
            "concurrency": Part(
                "concurrency",
                p.arrival_rps * p.latency_s,
                "",
                label="Requests in flight (average)",
            ),
            "replicas": Part(
                "replicas",
                _replicas(p),
                "",
                kind=Kind.INTEGER,
                tolerance=Exact(),
                label="Replicas needed",
            ),
        }

    def statement(self, p: LittleParams) -> str:
        return (
            f"An LLM inference endpoint receives on average $\\lambda = "
            f"{tex(p.arrival_rps, 12)}$ requests per second, and a request spends on average "
            f"$W = {tex(p.latency_s, 12)}$ s in the system, from arrival to its last token. "
            f"One replica of the serving engine can hold at most "
            f"$C_{{\\mathrm{{replica}}}} = {p.per_replica_concurrency}$ requests in flight "
            "(its maximum number of concurrent sequences).\n\n"
            "1. On average, how many requests are in flight (a pure number)?\n"
            "2. What is the smallest whole number of replicas whose combined slots hold that "
            "average (ignore bursts and headroom)?"
        )

    def solution(self, p: LittleParams) -> str:
        concurrency = p.arrival_rps * p.latency_s
        return (
            "Little's law: the average number in the system is arrival rate times the "
            "average time in the system.\n\n"
            + step(CONCURRENCY, {"lam": p.arrival_rps, "W": p.latency_s}, concurrency)
            + "\n\nReplicas come in whole units, so round up:\n\n"
            + step(REPLICAS, {"L": concurrency, "c": p.per_replica_concurrency}, _replicas(p))
            + "\n\nIn production you would add headroom for bursts on top of this floor."
        )

    def misconceptions(self, p: LittleParams) -> list[Misconception]:
        out = [
            Misconception(
                "rate-over-latency",
                "concurrency",
                p.arrival_rps / p.latency_s,
                "That divides the arrival rate by the latency. Little's law multiplies "
                "them: requests per second x seconds each = requests in flight.",
            ),
            Misconception(
                "latency-over-rate",
                "concurrency",
                p.latency_s / p.arrival_rps,
                "That divides the latency by the arrival rate (the mean gap between "
                "arrivals is 1/lambda). Requests in flight are lambda x W.",
            ),
            Misconception(
                "floor-not-ceil",
                "replicas",
                math.floor(_exact_concurrency(p) / p.per_replica_concurrency),
                "That rounds down, leaving too few slots for the average load. A partial "
                "replica still needs a whole one: round up.",
            ),
            Misconception(
                "rate-as-capacity",
                "replicas",
                math.ceil(exact(p.arrival_rps) / p.per_replica_concurrency),
                "That treats a replica's concurrent slots as requests per second. Each "
                "request holds a slot for W seconds, so divide lambda x W by the slots.",
            ),
        ]
        return drop_close_counts(out, {"replicas": _replicas(p)})
