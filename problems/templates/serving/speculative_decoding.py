"""spec-decode: expected tokens per target pass and the speedup of speculative
decoding; half the variants cost the draft by a real draft/target pair.
"""

from __future__ import annotations

import math
import random

from pydantic import Field

from hardware_db import catalog
from problems.engine.numbers import tex
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import (
    dense_models,
)


class SpecParams(Params):
    alpha: float = Field(ge=0, le=1)
    gamma: int = Field(ge=1, le=64)
    draft_cost: float = Field(ge=0, le=1)


TOKENS_PER_STEP = formula(
    r"E", lambda s: (1 - s.a ** (s.g + 1)) / (1 - s.a), a=r"\alpha", g=r"\gamma"
)
SPEEDUP = formula(r"S", lambda s: s.E / (s.g * s.c + 1), E="E", g=r"\gamma", c="c")
_ALPHAS = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9)
_DRAFT_COSTS = (0.02, 0.03, 0.05, 0.08, 0.1, 0.15, 0.2)


def _expected_tokens(alpha: float, gamma: int) -> float:
    if alpha == 1:
        return float(gamma + 1)  # the limit of the geometric sum
    return (1 - alpha ** (gamma + 1)) / (1 - alpha)


def _draft_pairs() -> list[tuple[catalog.ModelArch, catalog.ModelArch, float]]:
    """(draft, target, cost ratio) for dense models of one family sharing a tokenizer."""
    dense = dense_models()
    pairs = []
    for d in dense:
        for t in dense:
            same_family = d.name.rsplit(" ", 1)[0] == t.name.rsplit(" ", 1)[0]
            if (
                same_family
                and d.vocab_size == t.vocab_size
                and d.total_params * 4 <= t.total_params
            ):
                pairs.append((d, t, round(d.total_params / t.total_params, 4)))
    return pairs


@register
class SpecDecode(Template):
    slug = "spec-decode"
    title = "Speculative decoding: tokens per step and speedup"
    family = "serving"
    lessons = ("speculative-decoding", "llm-inference-at-scale")
    skills = ("speculative-decoding", "geometric-series")
    difficulty = 3
    Params = SpecParams

    def generate(self, rng: random.Random) -> SpecParams:
        pairs = _draft_pairs()
        # Half the time a real draft/target pair, costed by their parameter ratio.
        from_pair = bool(pairs) and rng.random() < 0.5
        cost = rng.choice(pairs)[2] if from_pair else rng.choice(_DRAFT_COSTS)
        return SpecParams(alpha=rng.choice(_ALPHAS), gamma=rng.randint(1, 8), draft_cost=cost)

    def solve(self, p: SpecParams) -> dict[str, Part]:
        tokens = _expected_tokens(p.alpha, p.gamma)
        return {
            "tokens_per_step": Part(
                "tokens_per_step", tokens, "", label="Expected tokens per target pass"
            ),
            "speedup": Part("speedup", tokens / (p.gamma * p.draft_cost + 1), "", label="Speedup"),
        }

    def statement(self, p: SpecParams) -> str:
        pair = next(
            (pr for pr in _draft_pairs() if math.isclose(pr[2], p.draft_cost, rel_tol=1e-9)),
            None,
        )
        if pair:
            setup = (
                f"You serve {pair[1].name} with speculative decoding, using {pair[0].name} "
                f"(same tokenizer) as the draft model. Decoding is memory-bound, so a draft "
                f"step costs about the ratio of their parameter counts: "
                f"$c = {tex(p.draft_cost, 12)}$ of a target forward pass."
            )
        else:
            setup = (
                "You serve a large model with speculative decoding. A small draft model's "
                f"forward pass costs $c = {tex(p.draft_cost, 12)}$ of the target model's."
            )
        return (
            f"{setup} Each step, the draft proposes $\\gamma = {p.gamma}$ tokens one by one, "
            "then the target verifies them all in a single forward pass. Each drafted token "
            f"is accepted with probability $\\alpha = {tex(p.alpha, 12)}$, independently; "
            "the first rejection ends the run, and the target's pass always contributes "
            "one token of its own (a correction or a bonus token).\n\n"
            "1. How many tokens does one step produce on average (a pure number)?\n"
            "2. What is the expected speedup over plain decoding with the target model "
            "(a pure number, counting the draft passes as cost)?"
        )

    def solution(self, p: SpecParams) -> str:
        tokens = _expected_tokens(p.alpha, p.gamma)
        speed = tokens / (p.gamma * p.draft_cost + 1)
        if p.alpha == 1:
            first = (
                f"With $\\alpha = 1$ every draft is accepted: $E = \\gamma + 1 = {p.gamma + 1}$."
            )
        else:
            first = (
                "The step yields $1 + \\alpha + \\alpha^2 + \\dots + \\alpha^{\\gamma}$ tokens "
                "on average (token $k$ survives only if all before it were accepted), a "
                "geometric sum:\n\n" + step(TOKENS_PER_STEP, {"a": p.alpha, "g": p.gamma}, tokens)
            )
        return (
            f"{first}\n\nOne step costs $\\gamma$ draft passes plus one target pass, "
            "$\\gamma c + 1$ target-pass equivalents, against 1 token per target pass "
            "without speculation:\n\n"
            + step(SPEEDUP, {"E": tokens, "g": p.gamma, "c": p.draft_cost}, speed)
        )

    def misconceptions(self, p: SpecParams) -> list[Misconception]:
        tokens = _expected_tokens(p.alpha, p.gamma)
        cost = p.gamma * p.draft_cost + 1
        out = [
            Misconception(
                "independent-acceptance",
                "tokens_per_step",
                p.gamma * p.alpha + 1,
                "That counts gamma x alpha accepted drafts, as if each draft were judged on "
                "its own. Verification stops at the first rejection, so later drafts count "
                "only if all earlier ones were accepted: a geometric sum.",
            ),
            Misconception(
                "missing-bonus-token",
                "tokens_per_step",
                tokens - 1,
                "That counts only accepted drafts. The target's verification pass always "
                "adds one token of its own, so add 1.",
            ),
            Misconception(
                "draft-cost-ignored",
                "speedup",
                tokens,
                "That treats the draft passes as free. Each step also runs gamma draft "
                "passes, each costing c of a target pass: divide by gamma x c + 1.",
            ),
            Misconception(
                "draft-cost-once",
                "speedup",
                tokens / (p.draft_cost + 1),
                "That charges for one draft pass per step. The draft runs once per proposed "
                "token, gamma times: divide by gamma x c + 1.",
            ),
            Misconception(
                "missing-bonus-token",
                "speedup",
                (tokens - 1) / cost,
                "That leaves out the token the target pass always contributes.",
            ),
        ]
        return out
