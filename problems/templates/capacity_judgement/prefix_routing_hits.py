"""prefix-routing-hits: what a router that ignores the KV cache costs a chat fleet. R
replicas of a model server each keep a prefix cache (vLLM's automatic prefix caching);
every conversation opens with the same S-token system prompt, cached on every replica
once warm, and runs T turns, each adding an n-token user message and an o-token answer,
so turn k's prompt is S + (k - 1)(n + o) + n tokens. A round-robin (or least-connections)
balancer sends each turn to any replica alike, so a follow-up turn finds its
conversation's history cached only when it lands where the previous turn ran, with
probability 1/R; llm-d's prefix-aware scheduler scores replicas by the prefix they hold
and sends it there, so every follow-up finds its history. Only the new message is
prefilled then.

Parts, over a conversation's turns (all equally frequent): the prefix-cache hit rate in
tokens (cached prompt tokens over prompt tokens, as vLLM's prefix-cache metrics count
it) under round-robin and under prefix-aware routing, and how many times more prompt
tokens round-robin makes the fleet prefill. Assumed, and said: caches large enough to
keep every live conversation (eviction would lower both rates), and the turn after a
miss cached where it ran.

Realism: 2-16 replicas, 300-3000-token system prompts, 3-10 turns of 30-300-token
messages and 100-600-token answers: a chat assistant's traffic.

Misconceptions: the shared system prompt counted as a miss on a new replica (shared-
prefix-missed), round-robin taken to keep a conversation on its replica (round-robin-
sticky), the new message counted as cached too (new-message-cached), and the ratio
turned over (ratio-inverted). A variant is redrawn unless every slip lies at least 2.5%
from its part's answer and from the part's other slips.
"""

from __future__ import annotations

import random

from pydantic import Field

from problems.engine.numbers import sig
from problems.engine.registry import register
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import parts_separated, tex15


class RoutingParams(Params):
    replicas: int = Field(ge=2, le=64)
    system_tokens: int = Field(ge=0, le=32_000)
    turns: int = Field(ge=2, le=50)
    message_tokens: int = Field(ge=1, le=8_000)
    answer_tokens: int = Field(ge=1, le=8_000)


def _sums(p: RoutingParams, r_share: float, shared: bool = True, new_cached: bool = False):
    """(prompt tokens, cached tokens) summed over the turns: a follow-up's history is
    cached with probability `r_share`; the system prompt always (if `shared`)."""
    queried = cached = 0.0
    for k in range(1, p.turns + 1):
        history = (k - 1) * (p.message_tokens + p.answer_tokens)
        queried += p.system_tokens + history + p.message_tokens
        system = p.system_tokens if shared else p.system_tokens * r_share
        cached += system + history * r_share + (p.message_tokens if new_cached else 0)
    return queried, cached


def rates(p: RoutingParams) -> tuple[float, float, float]:
    """(round-robin hit rate, prefix-aware hit rate, prefill ratio round-robin / aware)."""
    q, rr = _sums(p, 1 / p.replicas)
    _, aware = _sums(p, 1.0)
    return rr / q, aware / q, (q - rr) / (q - aware)


@register
class PrefixRoutingHits(Template):
    slug = "prefix-routing-hits"
    title = "Prefix-cache hits under round-robin and prefix-aware routing"
    family = "capacity_judgement"
    lessons = ("why-the-classic-load-balancer-breaks", "llm-d-routing-and-disaggregation")
    skills = ("prefix-caching", "llm-routing")
    difficulty = 2
    Params = RoutingParams
    version = 1

    def generate(self, rng: random.Random) -> RoutingParams:
        for _ in range(10_000):
            p = RoutingParams(
                replicas=rng.choice((2, 3, 4, 6, 8, 12, 16)),
                system_tokens=rng.choice((300, 500, 800, 1200, 2000, 3000)),
                turns=rng.randint(3, 10),
                message_tokens=rng.choice((30, 50, 80, 120, 200, 300)),
                answer_tokens=rng.choice((100, 150, 250, 400, 600)),
            )
            if parts_separated(self.solve(p), self.misconceptions(p)):
                return p
        raise RuntimeError("prefix-routing-hits: no separated variant")  # pragma: no cover

    def solve(self, p: RoutingParams) -> dict[str, Part]:
        rr, aware, ratio = rates(p)
        return {
            "round_robin_hit": Part(
                "round_robin_hit", rr * 100, "%", label="Prefix-cache hit rate, round-robin"
            ),
            "prefix_aware_hit": Part(
                "prefix_aware_hit", aware * 100, "%", label="Prefix-cache hit rate, prefix-aware"
            ),
            "prefill_ratio": Part(
                "prefill_ratio", ratio, "", label="Prompt tokens prefilled, round-robin / aware"
            ),
        }

    def statement(self, p: RoutingParams) -> str:
        return (
            f"A chat assistant runs on $R = {p.replicas}$ replicas of a vLLM server, each "
            "with automatic prefix caching. Every conversation starts with the same "
            f"$S = {tex15(p.system_tokens)}$-token system prompt (cached on every replica "
            f"once warm) and lasts $T = {p.turns}$ turns; each turn adds a "
            f"$n = {p.message_tokens}$-token user message and an $o = {p.answer_tokens}$-token "
            "answer, and sends the whole conversation so far as its prompt. Assume the "
            "caches hold every live conversation, and count the hit rate in prompt tokens "
            "(cached over total), over all turns alike.\n\n"
            "1. What is the prefix-cache hit rate, in %, when a round-robin load balancer "
            "spreads the turns over the replicas?\n"
            "2. What is it when llm-d's prefix-aware scheduler sends each turn to the "
            "replica holding its conversation's cached prefix?\n"
            "3. How many times more prompt tokens does the fleet prefill under round-robin "
            "than under prefix-aware routing?"
        )

    def solution(self, p: RoutingParams) -> str:
        q, rr = _sums(p, 1 / p.replicas)
        _, aware = _sums(p, 1.0)
        step = p.message_tokens + p.answer_tokens
        return (
            f"Turn $k$ sends $S + (k - 1)(n + o) + n$ prompt tokens; over the {p.turns} "
            f"turns that is {sig(q, 6)} tokens. The system prompt is cached everywhere, the "
            "new message never.\n\n"
            f"Prefix-aware routing sends every follow-up to the replica that served the "
            f"previous turn, so each turn finds $S$ and its whole history ({step} tokens "
            "more per earlier turn) cached: "
            f"{sig(aware, 6)} cached tokens, a hit rate of **{sig(aware / q * 100, 4)}%**.\n\n"
            f"Round-robin lands a follow-up on that replica only with probability "
            f"$1/R = 1/{p.replicas}$; elsewhere only $S$ is cached and the history is "
            f"prefilled again. Cached tokens: {sig(rr, 6)}, a hit rate of "
            f"**{sig(rr / q * 100, 4)}%**.\n\n"
            f"Prefilled tokens are the rest: {sig(q - rr, 6)} under round-robin against "
            f"{sig(q - aware, 6)} (the new messages only) under prefix-aware routing, "
            f"**{sig((q - rr) / (q - aware), 4)}** times as many. Round-robin and "
            "least-connections balance requests but not where a conversation's cached work "
            "lives, and the difference grows with the conversation."
        )

    def misconceptions(self, p: RoutingParams) -> list[Misconception]:
        q, rr = _sums(p, 1 / p.replicas)
        _, aware = _sums(p, 1.0)
        _, rr_unshared = _sums(p, 1 / p.replicas, shared=False)
        _, aware_new = _sums(p, 1.0, new_cached=True)
        return [
            Misconception(
                "shared-prefix-missed", "round_robin_hit", rr_unshared / q * 100,
                "Every replica holds the shared system prompt once warm: a turn sent "
                "elsewhere still hits it; only the conversation's history is missed.",
            ),
            Misconception(
                "round-robin-sticky", "round_robin_hit", aware / q * 100,
                "Round-robin does not keep a conversation on one replica: a follow-up lands "
                "where its history is cached only one time in R.",
            ),
            Misconception(
                "new-message-cached", "prefix_aware_hit", aware_new / q * 100,
                "The new user message has never been seen: it is prefilled on every turn, "
                "whatever the routing.",
            ),
            Misconception(
                "ratio-inverted", "prefill_ratio", (q - aware) / (q - rr),
                "Round-robin prefills more, not less: the ratio is its prefill over the "
                "prefix-aware router's, above 1.",
            ),
        ]  # fmt: skip
