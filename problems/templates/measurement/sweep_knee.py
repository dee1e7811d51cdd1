"""sweep-knee-max-seqs: from a benchmark sweep (concurrency against output throughput,
p99 TTFT and p99 TPOT) and a chat SLO, the highest concurrency that meets the SLO, the
--max-num-seqs to run the server at, and the throughput it gives there.

Realism: the sweep comes from the decode-bound server model of _family.py and _sweep.py
(a catalog model on catalog accelerators that hold it, steps no faster than HBM and 60% of
the dense peak allow); chat SLOs are round numbers (TPOT in 5 ms steps from 20 ms, TTFT in
50 ms steps) placed between the answer row and the next, so each variant has one answer.
The generator draws which target binds (TTFT, TPOT or both), so both matter.

Discrimination: the row of peak throughput (throughput-peak), a row meeting only the TPOT
target (ttft-ignored) or only the TTFT one (tpot-ignored), the first row that breaks the
SLO (first-violating-row), and on the rate one user's share of it (per-user-rate). Slips
equal to the answer or to an earlier slip are dropped; numeric slips are kept 2.5% apart
(the generator redraws).
"""

from __future__ import annotations

import random

from problems.engine.registry import register
from problems.engine.template import Kind, Misconception, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import drop_close_counts, fenced, parts_separated
from problems.templates.measurement import _sweep
from problems.templates.measurement._sweep import SweepParams, peak_row, slo_row


def _next_row(p: SweepParams, row: _sweep.Row) -> _sweep.Row | None:
    i = p.rows.index(row)
    return p.rows[i + 1] if i + 1 < len(p.rows) else None


@register
class SweepKneeMaxSeqs(Template):
    slug = "sweep-knee-max-seqs"
    title = "max-num-seqs for a chat SLO from a benchmark sweep"
    family = "measurement"
    lessons = (
        "batching-for-llm-inference",
        "throughput-versus-how-fast-one-answer-feels",
        "latency-one-user-feels",
    )
    skills = ("latency-throughput-tradeoff", "throughput-vs-latency", "tpot", "ttft")
    difficulty = 3
    Params = SweepParams
    feasibility = _sweep.FEASIBILITY

    def generate(self, rng: random.Random) -> SweepParams:
        while True:
            p = _sweep.draw_sweep(rng)
            if p is None:
                continue
            solved = self.solve(p)
            numeric = {"tokens_per_s": solved["tokens_per_s"]}
            if parts_separated(numeric, self.misconceptions(p)):
                return p

    def solve(self, p: SweepParams) -> dict[str, Part]:
        row = slo_row(p)
        return {
            "max_num_seqs": Part(
                "max_num_seqs",
                row[0],
                kind=Kind.INTEGER,
                tolerance=Exact(),
                label="--max-num-seqs",
            ),
            "tokens_per_s": Part(
                "tokens_per_s", float(row[1]), "tok/s", label="Output throughput there"
            ),
        }

    def statement(self, p: SweepParams) -> str:
        return (
            _sweep.setup_sentence(p)
            + "\n\n"
            + fenced(_sweep.table(p))
            + "\n\nThe service is a chat product with an SLO of p99 TTFT at most "
            f"{p.slo_ttft_ms:,} ms and p99 TPOT at most {p.slo_tpot_ms} ms. Running at most "
            "as many sequences as the highest concurrency the sweep shows meeting both "
            "targets keeps it within them.\n\n"
            "1. What is the highest concurrency in the sweep that meets both targets (the "
            "value to set as `--max-num-seqs`)?\n"
            "2. What output throughput does the server give at that concurrency, in tok/s?"
        )

    def solution(self, p: SweepParams) -> str:
        row = slo_row(p)
        nxt = _next_row(p, row)
        peak = peak_row(p)
        broken = ""
        if nxt is not None:
            why = []
            if nxt[2] > p.slo_ttft_ms:
                why.append(f"p99 TTFT {nxt[2]:,} ms > {p.slo_ttft_ms:,} ms")
            if nxt[3] > p.slo_tpot_ms:
                why.append(f"p99 TPOT {nxt[3]} ms > {p.slo_tpot_ms} ms")
            broken = f" The next row, {nxt[0]}, breaks it: {' and '.join(why)}."
        return (
            "Latency grows with concurrency, so read down the table and keep the last row "
            f"where both p99 TTFT $\\le$ {p.slo_ttft_ms:,} ms and p99 TPOT $\\le$ "
            f"{p.slo_tpot_ms} ms hold. At concurrency {row[0]} they are {row[2]:,} ms and "
            f"{row[3]} ms: within both.{broken}\n\n"
            f"So set `--max-num-seqs {row[0]}`: **{row[0]}**, where the server gives "
            f"**{row[1]:,} tok/s**. The sweep's peak, {peak[1]:,} tok/s at concurrency "
            f"{peak[0]}, is where throughput stops rising, not where users are served "
            f"within the SLO. At concurrency {row[0]} each user sees about "
            f"{row[1] / row[0]:.4g} tok/s."
        )

    def misconceptions(self, p: SweepParams) -> list[Misconception]:
        row = slo_row(p)
        peak = peak_row(p)
        nxt = _next_row(p, row)
        out: list[Misconception] = []
        if peak[0] != row[0]:
            text = (
                "That is the throughput peak (the knee), where the sweep stops gaining "
                "tokens per second. It ignores the SLO: users there wait longer than the "
                "targets allow."
            )
            out += [
                Misconception("throughput-peak", "max_num_seqs", peak[0], text),
                Misconception("throughput-peak", "tokens_per_s", float(peak[1]), text),
            ]
        for ttft, tpot, code, what in (
            (False, True, "ttft-ignored", "TTFT"),
            (True, False, "tpot-ignored", "TPOT"),
        ):
            only = slo_row(p, ttft, tpot)
            if only is not None and only[0] != row[0]:
                out.append(
                    Misconception(
                        code,
                        "max_num_seqs",
                        only[0],
                        f"That row breaks the p99 {what} target. A row must meet both.",
                    )
                )
        if nxt is not None:
            text = (
                "That is the first row that breaks the SLO; the answer is the row before it, "
                "the last one within both targets."
            )
            out += [
                Misconception("first-violating-row", "max_num_seqs", nxt[0], text),
                Misconception("first-violating-row", "tokens_per_s", float(nxt[1]), text),
            ]
        out.append(
            Misconception(
                "per-user-rate",
                "tokens_per_s",
                row[1] / row[0],
                f"That is one user's share. The column counts every sequence's tokens: the "
                f"server gives {row[1]:,} tok/s across {row[0]} requests in flight.",
            )
        )
        return drop_close_counts(out, {"max_num_seqs": row[0]})
