"""decode-batch-slo: the largest decode batch that keeps time per output token within an
SLO, from a linear fit of the decode step time, and the throughput it buys.

Realism: a measured fit of a decode step, t0 + k x batch ms, as a serving engine's
profiler reports it: t0 (the weight reads and fixed overheads of a step) 4-30 ms, k (one
more sequence's KV-cache reads and compute) 0.02-0.25 ms, and a per-token SLO of 20-200 ms
that leaves room for at least 8 sequences. Every sequence gets one token per step, so the
SLO bounds the step. max_batch is floored on the exact decimal values. Discrimination:
ignoring t0 (base-ignored) moves max_batch by t0/k >= 16 sequences; rounding up
(ceil-not-floor) is named only when the quotient is not whole and the batch is under 100
(counts within 1% are treated as the same answer); tokens per second taken as one sequence's rate
(per-sequence-rate) is max_batch times too low. The base-ignored batch is not named on
tokens per second: the rate saturates near 1000/k, so it often lies within 1%.
"""

from __future__ import annotations

import math
import random

from pydantic import Field

from problems.engine.numbers import exact, sig, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, sp, step
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import drop_close_counts


class BatchSloParams(Params):
    step_ms_base: float = Field(ge=0, le=10_000)
    step_ms_per_seq: float = Field(gt=0, le=10_000)
    tpot_slo_ms: float = Field(gt=0, le=100_000)


MAX_BATCH = formula(
    r"B_{\max}",
    lambda s: sp.floor((s.S - s.t) / s.k),
    S=r"\mathrm{SLO}",
    t="t_0",
    k="k",
)
RATE = formula(
    r"R",
    lambda s: s.B / ((s.t + s.k * s.B) / 1000),
    B=r"B_{\max}",
    t="t_0",
    k="k",
)
_BASES = (4, 5, 6, 7.5, 8, 10, 12, 15, 20, 25, 30)
_PER_SEQ = (0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.1, 0.12, 0.15, 0.2, 0.25)
_SLOS = (20, 25, 30, 40, 50, 60, 75, 80, 100, 120, 150, 200)


def _max_batch(p: BatchSloParams) -> int:
    return math.floor((exact(p.tpot_slo_ms) - exact(p.step_ms_base)) / exact(p.step_ms_per_seq))


def _step_ms(p: BatchSloParams, batch: int) -> float:
    return p.step_ms_base + p.step_ms_per_seq * batch


def _rate(p: BatchSloParams, batch: int) -> float:
    return batch / (_step_ms(p, batch) / 1000)


@register
class DecodeBatchSlo(Template):
    slug = "decode-batch-slo"
    title = "The largest decode batch within a per-token SLO"
    family = "serving"
    lessons = ("batching-for-llm-inference", "serving-models", "llm-inference-at-scale")
    skills = ("decode-batching", "tpot", "latency-throughput-tradeoff")
    difficulty = 2
    version = 1
    Params = BatchSloParams

    def generate(self, rng: random.Random) -> BatchSloParams:
        while True:
            p = BatchSloParams(
                step_ms_base=float(rng.choice(_BASES)),
                step_ms_per_seq=rng.choice(_PER_SEQ),
                tpot_slo_ms=float(rng.choice(_SLOS)),
            )
            if p.tpot_slo_ms >= 1.5 * p.step_ms_base and _max_batch(p) >= 8:
                return p

    def solve(self, p: BatchSloParams) -> dict[str, Part]:
        batch = _max_batch(p)
        if batch < 1:
            raise ValueError("the SLO does not leave room for even one sequence")
        return {
            "max_batch": Part(
                "max_batch",
                batch,
                "",
                kind=Kind.INTEGER,
                tolerance=Exact(),
                label="Largest batch within the SLO",
            ),
            "tokens_per_s": Part(
                "tokens_per_s", _rate(p, batch), "tok/s", label="Output tokens per second"
            ),
        }

    def statement(self, p: BatchSloParams) -> str:
        return (
            "A serving engine's profiler fits its decode step time as "
            f"$t_{{\\mathrm{{step}}}} = t_0 + k B$, with $t_0 = {tex(p.step_ms_base, 12)}$ ms "
            f"and $k = {tex(p.step_ms_per_seq, 12)}$ ms per sequence in the batch $B$. Every "
            "sequence in the batch gets exactly one new token per step, so each sequence's "
            "time per output token is the step time. The service promises a time per output "
            f"token of at most {sig(p.tpot_slo_ms, 12)} ms.\n\n"
            "1. What is the largest whole batch size that meets the SLO?\n"
            "2. At that batch size, how many output tokens per second does the engine "
            "produce across all its sequences, in tok/s?"
        )

    def solution(self, p: BatchSloParams) -> str:
        batch = _max_batch(p)
        step_ms = _step_ms(p, batch)
        return (
            "The step must fit in the SLO: $t_0 + k B \\le \\mathrm{SLO}$, so the batch is the "
            "whole number of sequences that fit in what is left after $t_0$, rounded down:\n\n"
            + step(
                MAX_BATCH,
                {"S": p.tpot_slo_ms, "t": p.step_ms_base, "k": p.step_ms_per_seq},
                batch,
            )
            + f"\n\nA step then takes ${tex(p.step_ms_base, 12)} + {tex(p.step_ms_per_seq, 12)}"
            f" \\times {batch} = {tex(step_ms)}$ ms and yields {batch} tokens, one per "
            "sequence:\n\n"
            + step(
                RATE,
                {"B": batch, "t": p.step_ms_base, "k": p.step_ms_per_seq},
                _rate(p, batch),
                "tok/s",
            )
            + f"\n\nSo **{batch}** sequences and **{sig(_rate(p, batch), 6)} tok/s**; each "
            f"sequence alone sees only {sig(1000 / step_ms, 6)} tok/s."
        )

    def misconceptions(self, p: BatchSloParams) -> list[Misconception]:
        batch = _max_batch(p)
        exact_q = (exact(p.tpot_slo_ms) - exact(p.step_ms_base)) / exact(p.step_ms_per_seq)
        no_base = math.floor(exact(p.tpot_slo_ms) / exact(p.step_ms_per_seq))
        out = [
            Misconception(
                "base-ignored",
                "max_batch",
                no_base,
                f"That divides the whole SLO by k, forgetting the fixed {sig(p.step_ms_base)} ms "
                "every step pays. Subtract t0 from the SLO first.",
            ),
            Misconception(
                "per-sequence-rate",
                "tokens_per_s",
                1000 / _step_ms(p, batch),
                "That is one sequence's rate, one token per step. Every step yields a token "
                f"for each of the {batch} sequences: multiply by the batch.",
            ),
            Misconception(
                "unit-scale",
                "tokens_per_s",
                batch / _step_ms(p, batch),
                "That divides by the step time in milliseconds, giving tokens per "
                "millisecond. Convert the step to seconds first.",
            ),
        ]
        if exact_q.denominator != 1:
            out.append(
                Misconception(
                    "ceil-not-floor",
                    "max_batch",
                    batch + 1,
                    "That rounds up: one more sequence makes the step longer than the SLO. "
                    "The largest batch that meets it rounds down.",
                )
            )
        return drop_close_counts(out, {"max_batch": batch})
