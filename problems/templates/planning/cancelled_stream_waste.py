"""cancelled-stream-waste: the decode work spent on streams nobody reads any more. Users
close the tab mid-answer, but the proxy in front of the engine does not pass the
disconnect on, so the engine keeps decoding each abandoned request to max_tokens. The
parts are the tokens decoded after the client left, per hour (Mtok/h), the GPU-hours
that costs each hour, and the share of the fleet's decode capacity it takes (%).

Realism: 2-80 requests/s; 5-30% of streams abandoned after 40-600 streamed tokens, with
max_tokens of 1,024-8,192; prompts of 200-6,000 tokens; replicas of 1, 2, 4 or 8 GPUs
decoding 1,500-6,000 tokens/s in aggregate at their operating batch (what a batched 8B to
70B model reaches). The fleet is sized for its own load: every answer runs to max_tokens,
so the engine decodes lambda M tokens/s, and n is the fewest replicas that carry it at a
peak utilisation of 60-90% (2-400 replicas; before issue 34, 2-32 replicas drawn apart
from the load left 43% of fleets too small for it). The waste takes 3-27% of capacity.
The statement says the abandoned answers would have run to max_tokens (long-form
generations), so no early end-of-sequence muddies the count.

Misconceptions: the tokens already streamed counted as waste, max_tokens each
(streamed-counted-as-waste: the user received them before leaving); the prompt added
too (prefill-counted: prefill ran before the disconnect and was needed either way);
every request rather than the abandoned share (all-requests); a per-second figure given
as per hour (per-second); replica-hours given as GPU-hours (replica-hours, for replicas
of more than one GPU); the abandoned share of requests given as the share of capacity
(cancel-share-as-capacity). A variant is redrawn unless every slip lies at least 2.5%
from its part's answer and from the part's other slips.
"""

from __future__ import annotations

import math
import random

from pydantic import Field, model_validator

from problems.engine.feasibility import CAPACITY, Feasibility, Plan, SystemDescription, Traffic
from problems.engine.numbers import sig
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import parts_separated, sig15, tex15


class WasteParams(Params):
    request_rps: float = Field(gt=0, le=1e5)
    cancel_pct: float = Field(gt=0, le=100)
    streamed_tokens: int = Field(ge=0, le=1_000_000)
    max_tokens: int = Field(ge=1, le=1_000_000)
    prompt_tokens: int = Field(ge=1, le=10_000_000)
    replica_tok_s: float = Field(gt=0, le=1e7)
    gpus_per_replica: int = Field(ge=1, le=1024)
    n_replicas: int = Field(ge=1, le=100_000)

    @model_validator(mode="after")
    def _leaves_before_the_end(self) -> WasteParams:
        if self.streamed_tokens >= self.max_tokens:
            raise ValueError("streamed_tokens must be below max_tokens")
        return self


WASTE = formula(
    r"W",
    lambda s: s.lam * s.c * (s.M - s.k) * s.h / s.u,
    lam=r"\lambda",
    c="c",
    M="M",
    k="k",
    h=r"3600",
    u=r"10^{6}",
)
GPU_HOURS = formula(r"G", lambda s: s.w / s.T * s.g, w="w", T="T", g="g")
SHARE = formula(r"s", lambda s: s.w / (s.n * s.T), w="w", n="n", T="T")

_RATES = (2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80)
_CANCEL = (5, 8, 10, 12, 15, 18, 20, 25, 30)
_MAX_TOKENS = (1024, 2048, 2048, 4096, 4096, 8192)
_STREAMED = (40, 60, 80, 100, 120, 150, 200, 250, 300, 400, 500, 600)
_PROMPTS = (200, 400, 600, 800, 1000, 1500, 2000, 3000, 4000, 6000)
_PEAK_UTIL = (0.6, 0.7, 0.75, 0.8, 0.85, 0.9)  # the fleet's decode load at peak / capacity
_MOST_REPLICAS = 400
_THROUGHPUT = {
    1: (1500, 1800, 2000, 2400, 3000, 3600, 4000),
    2: (1500, 2000, 2500, 3000, 3500),
    4: (2000, 2500, 3000, 3500, 4000),
    8: (2500, 3000, 4000, 5000, 6000),
}


def waste_tok_s(p: WasteParams) -> float:
    """Tokens per second decoded after the client has gone."""
    return p.request_rps * p.cancel_pct / 100 * (p.max_tokens - p.streamed_tokens)


def describe(p: WasteParams) -> SystemDescription:
    """The decode load (every answer runs to max_tokens) against n replicas of T tok/s."""
    return SystemDescription(
        plan=Plan(replicas=p.n_replicas, decode_capacity_tok_s=p.replica_tok_s),
        traffic=Traffic(decode_tok_s=p.request_rps * p.max_tokens),
    )


@register
class CancelledStreamWaste(Template):
    slug = "cancelled-stream-waste"
    title = "Decode work wasted on abandoned streams"
    family = "planning"
    lessons = ("cancellation-retries-and-stream-integrity", "serving-models", "the-serving-layer")
    skills = ("cancellation", "serving-capacity", "gpu-hours")
    difficulty = 2
    Params = WasteParams
    version = 1
    feasibility = Feasibility((CAPACITY,), describe)

    def generate(self, rng: random.Random) -> WasteParams:
        for _ in range(10_000):
            g = rng.choice((1, 2, 4, 8))
            rps, cancel = float(rng.choice(_RATES)), float(rng.choice(_CANCEL))
            streamed, max_tokens = rng.choice(_STREAMED), rng.choice(_MAX_TOKENS)
            prompt, per_replica = rng.choice(_PROMPTS), float(rng.choice(_THROUGHPUT[g]))
            # The fewest replicas that carry the load at the drawn peak utilisation.
            n = math.ceil(rps * max_tokens / (per_replica * rng.choice(_PEAK_UTIL)))
            if not 2 <= n <= _MOST_REPLICAS or streamed * 4 > max_tokens:
                continue
            p = WasteParams(
                request_rps=rps,
                cancel_pct=cancel,
                streamed_tokens=streamed,
                max_tokens=max_tokens,
                prompt_tokens=prompt,
                replica_tok_s=per_replica,
                gpus_per_replica=g,
                n_replicas=n,
            )
            share = waste_tok_s(p) / (p.n_replicas * p.replica_tok_s)
            if share >= 0.03 and parts_separated(self.solve(p), self.misconceptions(p)):
                return p
        raise RuntimeError("cancelled-stream-waste: no separated variant")  # pragma: no cover

    def solve(self, p: WasteParams) -> dict[str, Part]:
        w = waste_tok_s(p)
        return {
            "wasted_tokens": Part(
                "wasted_tokens",
                w * 3600 / 1e6,
                "Mtok/h",
                label="Tokens decoded after the client left",
            ),
            "gpu_hours": Part(
                "gpu_hours",
                w / p.replica_tok_s * p.gpus_per_replica,
                "GPU-h",
                label="GPU-hours wasted per hour",
            ),
            "capacity_share": Part(
                "capacity_share",
                w / (p.n_replicas * p.replica_tok_s) * 100,
                "%",
                label="Share of the fleet's decode capacity",
            ),
        }

    def statement(self, p: WasteParams) -> str:
        g = p.gpus_per_replica
        replica = "one GPU" if g == 1 else f"$g = {g}$ GPUs"
        return (
            f"A chat service receives $\\lambda = {tex15(p.request_rps)}$ requests per second, "
            f"with prompts of {sig15(p.prompt_tokens)} tokens on average, and streams each "
            f"answer token by token with max_tokens $M = {tex15(p.max_tokens)}$. These are "
            "long-form answers: left alone, every one runs to max_tokens. "
            f"$c = {tex15(p.cancel_pct)}\\%$ of users close the page mid-answer, on average "
            f"after $k = {tex15(p.streamed_tokens)}$ tokens have been streamed to them. The "
            "proxy in front of the inference engine does not pass the disconnect on, so the "
            "engine keeps decoding each abandoned request to max_tokens.\n\n"
            f"The fleet has $n = {p.n_replicas}$ replicas of {replica} each; at its operating "
            f"batch one replica decodes $T = {tex15(p.replica_tok_s)}$ tokens per second in "
            "all.\n\n"
            "1. How many tokens are decoded for nobody each hour, in millions (Mtok/h)?\n"
            "2. How many GPU-hours does that waste every hour?\n"
            "3. What share of the fleet's decode capacity goes to it, in %?"
        )

    def solution(self, p: WasteParams) -> str:
        w = waste_tok_s(p)
        parts = self.solve(p)
        c = p.cancel_pct / 100
        return (
            "Only the tokens decoded after the user left are wasted: the first $k$ were "
            "delivered, and the prompt's prefill ran before the disconnect and was needed "
            "either way. Each abandoned request therefore wastes $M - k = "
            f"{tex15(p.max_tokens - p.streamed_tokens)}$ tokens, and "
            f"$\\lambda c = {tex15(p.request_rps)} \\times {tex15(c)} = "
            f"{tex15(p.request_rps * c)}$ requests are abandoned per second. Per hour, in "
            "millions:\n\n"
            + step(
                WASTE,
                {
                    "lam": p.request_rps,
                    "c": c,
                    "M": p.max_tokens,
                    "k": p.streamed_tokens,
                    "h": "3600",
                    "u": "10^{6}",
                },
                parts["wasted_tokens"].value,
                "Mtok/h",
            )
            + f"\n\nThat is $w = {tex15(w)}$ tokens per second. A replica decodes $T$ per "
            f"second, so $w / T = {sig(w / p.replica_tok_s, 4)}$ replicas are busy on it all "
            f"the time; each has $g = {p.gpus_per_replica}$ GPU(s), and every hour that is\n\n"
            + step(
                GPU_HOURS,
                {"w": w, "T": p.replica_tok_s, "g": p.gpus_per_replica},
                parts["gpu_hours"].value,
                "GPU-h",
            )
            + "\n\nAgainst the fleet's decode capacity $n T$:\n\n"
            + step(
                SHARE,
                {"w": w, "n": p.n_replicas, "T": p.replica_tok_s},
                parts["capacity_share"].value / 100,
            )
            + f"\n\nthat is **{sig(parts['capacity_share'].value, 4)}%**, capacity that "
            "propagating the disconnect (aborting the request in the engine) would free."
        )

    def misconceptions(self, p: WasteParams) -> list[Misconception]:
        lam, c, m, k = p.request_rps, p.cancel_pct / 100, p.max_tokens, p.streamed_tokens
        t, g, n = p.replica_tok_s, p.gpus_per_replica, p.n_replicas
        per_req = {
            "streamed-counted-as-waste": (
                lam * c * m,
                f"That counts all {m} tokens. The first {k} were streamed to the user before "
                "they left; only the tokens decoded afterwards are waste.",
            ),
            "prefill-counted": (
                lam * c * (p.prompt_tokens + m - k),
                "That adds the prompt. Its prefill ran before the user left and would have "
                "been needed anyway; the cost of the missed cancellation is decode only.",
            ),
            "all-requests": (
                lam * (m - k),
                f"That charges every request. Only the {sig15(p.cancel_pct)}% that are "
                "abandoned keep decoding for nobody.",
            ),
        }
        out = [
            Misconception(code, "wasted_tokens", v * 3600 / 1e6, fb)
            for code, (v, fb) in per_req.items()
        ]
        out.append(
            Misconception(
                "per-second",
                "wasted_tokens",
                lam * c * (m - k) / 1e6,
                "That is the waste per second. The question asks per hour: multiply by 3,600.",
            )
        )
        for code in ("streamed-counted-as-waste", "all-requests"):
            v, fb = per_req[code]
            out.append(Misconception(code, "gpu_hours", v / t * g, fb))
            out.append(Misconception(code, "capacity_share", v / (n * t) * 100, fb))
        if g > 1:
            out.append(
                Misconception(
                    "replica-hours",
                    "gpu_hours",
                    lam * c * (m - k) / t,
                    f"That is replica-hours. Each replica holds {g} GPUs, and all of them are "
                    "busy while it decodes, so multiply by the GPUs per replica.",
                )
            )
        out.append(
            Misconception(
                "cancel-share-as-capacity",
                "capacity_share",
                p.cancel_pct,
                "That is the share of requests abandoned. The share of capacity depends on "
                "how many tokens each one wastes and on what the fleet can decode.",
            )
        )
        return out
