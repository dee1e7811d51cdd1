"""request-log-latency: a load generator's per-request log (arrival, prompt tokens, first
and last token times, output tokens, finish reason) and one request's token times; report
p50 and p99 TTFT by the nearest-rank method over the completed requests, the traced
request's worst inter-token gap, a named request's end-to-end latency, and the counts of
completed, cancelled and failed requests.

Realism: _request_log.py draws the log from the server model of _family.py for a catalog
model on accelerators that hold it, at a steady concurrency of 8-64: prefills no faster
than 60% of the dense peak, token gaps no shorter than the HBM decode floor (held by the
feasibility checks). What counts as what is stated, as vLLM's serving benchmark counts it:
`stop` and `length` complete (max_tokens reached is a complete, truncated answer), `abort`
is a cancellation, `error` a failure; latencies are over completed requests only.

Discrimination: on the percentiles the mean (mean-not-percentile), the first-token
timestamp read as TTFT (first-token-timestamp), the median interpolated between the two
middle values (interpolated-percentile, even counts) and cancelled requests timed with the
completed (cancelled-timed); on the gap the mean gap (mean-gap) and the wait for the first
token counted as a gap (ttft-as-gap); on end-to-end latency, timed from the first token
(e2e-from-first-token) or the last token's timestamp (timestamp-not-duration); on the
counts, cancelled counted as completed or failed, `length` as failed or not completed.
Numeric slips are kept 2.5% apart (the generator redraws); equal counts are dropped.
"""

from __future__ import annotations

import random
from statistics import mean

from problems.engine.numbers import sig
from problems.engine.registry import register
from problems.engine.template import Kind, Misconception, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import drop_close_counts, fenced, parts_separated
from problems.templates.measurement import _request_log as log
from problems.templates.measurement._family import nearest_rank, served_on
from problems.templates.measurement._request_log import LogParams, completed, gaps, rid


def _ttfts(p: LogParams) -> list[int]:
    return [r.ttft_ms for r in completed(p)]


def _counts(p: LogParams) -> dict[str, int]:
    kinds = [r.finish for r in p.requests]
    return {
        "completed": kinds.count("stop") + kinds.count("length"),
        "cancelled": kinds.count("abort"),
        "failed": kinds.count("error"),
    }


def _e2e_s(p: LogParams) -> float:
    r = p.requests[p.e2e_request]
    return (r.last_token_ms - r.arrival_ms) / 1000


def _count(name: str, value: int, label: str) -> Part:
    return Part(name, value, kind=Kind.INTEGER, tolerance=Exact(), label=label)


@register
class RequestLogLatency(Template):
    slug = "request-log-latency"
    title = "Latency percentiles and outcome counts from a per-request log"
    family = "measurement"
    lessons = ("latency-one-user-feels", "serving-models")
    skills = ("latency-percentiles", "ttft", "tpot", "request-lifecycle")
    difficulty = 3
    Params = LogParams
    feasibility = log.FEASIBILITY

    def generate(self, rng: random.Random) -> LogParams:
        while True:
            p = log.draw(rng)
            if p is None:
                continue
            numeric = {k: v for k, v in self.solve(p).items() if v.kind is Kind.NUMERIC}
            if parts_separated(numeric, self.misconceptions(p)):
                return p

    def solve(self, p: LogParams) -> dict[str, Part]:
        t = _ttfts(p)
        c = _counts(p)
        return {
            "ttft_p50": Part("ttft_p50", float(nearest_rank(t, 50)), "ms", label="p50 TTFT"),
            "ttft_p99": Part("ttft_p99", float(nearest_rank(t, 99)), "ms", label="p99 TTFT"),
            "worst_gap": Part(
                "worst_gap", float(max(gaps(p))), "ms", label=f"Worst gap of {rid(p.trace)}"
            ),
            "e2e": Part("e2e", _e2e_s(p), "s", label=f"End-to-end latency of {rid(p.e2e_request)}"),
            "completed": _count("completed", c["completed"], "Completed"),
            "cancelled": _count("cancelled", c["cancelled"], "Cancelled"),
            "failed": _count("failed", c["failed"], "Failed"),
        }

    def statement(self, p: LogParams) -> str:
        return (
            f"A load test keeps {p.concurrency} requests in flight against a vLLM server "
            f"serving {served_on(p.deployment)}, every request with `max_tokens` "
            f"{p.max_tokens}. Part of its per-request log (times in seconds since the run "
            "started; `-` where a request got no token):\n\n"
            + fenced(log.log_text(p))
            + f"\n\nThe token times of {rid(p.trace)}, one per output token:\n\n"
            + fenced(log.trace_text(p))
            + "\n\nA request completed if it finished with `stop` (end of its answer) or "
            "`length` (it reached `max_tokens`); `abort` means the client cancelled it, "
            "`error` that it failed. Time to first token (TTFT) runs from a request's "
            "arrival to its first output token; end-to-end latency from its arrival to its "
            "last token. Latencies are reported over completed requests only, and the "
            "$p$-th percentile of $n$ values is the nearest rank: the value at rank "
            "$\\lceil p n / 100 \\rceil$ in ascending order.\n\n"
            "1. What are the p50 and the p99 TTFT, in ms?\n"
            f"2. What is the longest gap between two consecutive output tokens of "
            f"{rid(p.trace)}, in ms?\n"
            f"3. What is the end-to-end latency of {rid(p.e2e_request)}, in s?\n"
            "4. How many requests completed, how many were cancelled, and how many failed?"
        )

    def solution(self, p: LogParams) -> str:
        t = sorted(_ttfts(p))
        n = len(t)
        k50, k99 = -(-50 * n // 100), -(-99 * n // 100)
        g = gaps(p)
        worst = max(g)
        at = g.index(worst)
        r = p.requests[p.e2e_request]
        c = _counts(p)
        listed = ", ".join(str(x) for x in t)
        return (
            f"Completed requests (`stop` or `length`): {c['completed']}. Their TTFTs, first "
            f"token minus arrival, sorted, in ms: {listed}.\n\n"
            f"With $n = {n}$, p50 is at rank $\\lceil 50 n / 100 \\rceil = {k50}$: "
            f"**{t[k50 - 1]} ms**; p99 at rank $\\lceil 99 n / 100 \\rceil = {k99}$, the "
            f"largest: **{t[k99 - 1]} ms**. Their mean, {sig(mean(t), 5)} ms, is neither.\n\n"
            f"Gaps of {rid(p.trace)}: consecutive token times subtracted. The longest is "
            f"from {p.trace_ms[at] / 1000:.3f} s to {p.trace_ms[at + 1] / 1000:.3f} s: "
            f"**{worst} ms**, against a mean of {sig(mean(g), 4)} ms: one stall a mean "
            "hides.\n\n"
            f"{rid(p.e2e_request)} arrived at {r.arrival_ms / 1000:.3f} s and its last token "
            f"came at {r.last_token_ms / 1000:.3f} s: **{sig(_e2e_s(p), 6)} s** end to end. "
            "Its time from first to last token leaves out the wait its user had for the "
            "first.\n\n"
            f"Outcomes: **{c['completed']} completed** (`length` included: the answer was "
            f"cut at `max_tokens`, not lost), **{c['cancelled']} cancelled** (`abort`) and "
            f"**{c['failed']} failed** (`error`)."
        )

    def misconceptions(self, p: LogParams) -> list[Misconception]:
        t = _ttfts(p)
        done = log.completed(p)
        out: list[Misconception] = []
        avg = float(mean(t))
        for part in ("ttft_p50", "ttft_p99"):
            out.append(
                Misconception(
                    "mean-not-percentile",
                    part,
                    avg,
                    "That is the mean TTFT. A percentile is a value of the sorted list, "
                    "here by nearest rank.",
                )
            )
        firsts = [r.first_token_ms for r in done]
        for part, pct in (("ttft_p50", 50), ("ttft_p99", 99)):
            out.append(
                Misconception(
                    "first-token-timestamp",
                    part,
                    float(nearest_rank(firsts, pct)),
                    "That reads the first-token timestamp as TTFT. The timestamps count "
                    "from the start of the run; subtract each request's arrival.",
                )
            )
        ordered = sorted(t)
        if len(t) % 2 == 0 and ordered[len(t) // 2 - 1] != ordered[len(t) // 2]:
            out.append(
                Misconception(
                    "interpolated-percentile",
                    "ttft_p50",
                    (ordered[len(t) // 2 - 1] + ordered[len(t) // 2]) / 2,
                    "That averages the two middle values. The nearest-rank method takes the "
                    "value at rank ceil(p n / 100) itself.",
                )
            )
        timed = t + [r.ttft_ms for r in p.requests if r.finish == "abort" and r.output_tokens]
        if nearest_rank(timed, 99) != nearest_rank(t, 99):
            out.append(
                Misconception(
                    "cancelled-timed",
                    "ttft_p99",
                    float(nearest_rank(timed, 99)),
                    "That counts cancelled requests in the TTFT percentiles; they are "
                    "reported only in the cancelled count.",
                )
            )
        g = gaps(p)
        out.append(
            Misconception(
                "mean-gap",
                "worst_gap",
                float(mean(g)),
                "That is the mean gap (the request's TPOT). The question asks for the "
                "longest one, the stall its user saw.",
            )
        )
        tr = p.requests[p.trace]
        if tr.ttft_ms > max(g):
            out.append(
                Misconception(
                    "ttft-as-gap",
                    "worst_gap",
                    float(tr.ttft_ms),
                    "That counts the wait for the first token as a gap. Gaps are between two "
                    "output tokens; the first wait is the TTFT.",
                )
            )
        r = p.requests[p.e2e_request]
        out += [
            Misconception(
                "e2e-from-first-token",
                "e2e",
                (r.last_token_ms - r.first_token_ms) / 1000,
                "That starts the clock at the first token. End-to-end latency starts at "
                "the request's arrival, so it includes the TTFT.",
            ),
            Misconception(
                "timestamp-not-duration",
                "e2e",
                r.last_token_ms / 1000,
                "That is the last token's timestamp, counted from the start of the run. "
                "Subtract the request's arrival.",
            ),
        ]
        c = _counts(p)
        length = sum(r.finish == "length" for r in p.requests)
        out += [
            Misconception(
                "aborted-counted-completed",
                "completed",
                c["completed"] + c["cancelled"],
                "A cancelled request (`abort`) did not complete, even one that streamed "
                "some tokens first.",
            ),
            Misconception(
                "length-not-completed",
                "completed",
                c["completed"] - length,
                "`length` completed too: the answer reached `max_tokens` and was returned.",
            ),
            Misconception(
                "length-counted-failed",
                "failed",
                c["failed"] + length,
                "`length` is not a failure: the request returned `max_tokens` tokens.",
            ),
            Misconception(
                "abort-counted-failed",
                "failed",
                c["failed"] + c["cancelled"],
                "The client cancelled those (`abort`); they count as cancelled, not failed.",
            ),
        ]
        return drop_close_counts(out, {k: c[k] for k in ("completed", "failed")})
