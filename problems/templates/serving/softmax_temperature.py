"""softmax-temperature: the most likely token's probability after temperature, and how
many tokens top-p (nucleus) sampling keeps.

Realism: the logits of a language model's few most likely next tokens (4-8 of them, the
top one 2-9, gaps of 0.1-2.5 between neighbours, one decimal place each), treated as the
whole vocabulary; the temperatures (0.3-2, never 1) and top-p values (0.5-0.95) samplers
are run with. A variant is redrawn when a cumulative probability lies within 0.5% of
top_p (a learner's rounding would flip the count) or when the temperature slips land
within 2% of the answer or of each other. Discrimination: temperature ignored
(temperature-ignored) or multiplied instead of divided (temperature-multiplied) on p_top;
the nucleus counted on the probabilities before temperature (top-p-before-temperature)
and stopping one token short of top_p (stops-before-p) on the count, each named only
when it changes the count, and stops-before-p only when it differs from the other.
Logits are a tuple (a JSON list on the command line and in stored parameters; a tuple so
that parameters stay hashable) of 2-1,000 values within +-1,000, largest first (others
are refused); the softmax subtracts the largest so no exponential overflows.
"""

from __future__ import annotations

import math
import random
from typing import Annotated

from pydantic import Field, field_validator

from problems.engine.numbers import sig, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact

Logit = Annotated[float, Field(ge=-1000, le=1000)]
# Cumulative sums within this of top_p still "reach" it (float rounding of the softmax).
_SLACK = 1e-9


class SoftmaxParams(Params):
    logits: tuple[Logit, ...] = Field(min_length=2, max_length=1000)
    temperature: float = Field(ge=0.01, le=100)
    top_p: float = Field(gt=0, le=1)

    @field_validator("logits")
    @classmethod
    def _largest_first(cls, v: tuple[float, ...]) -> tuple[float, ...]:
        if any(a < b for a, b in zip(v, v[1:], strict=False)):
            raise ValueError("logits must be listed largest first")
        return v


P_TOP = formula(
    r"p_1",
    lambda s: s.e1 / s.S,
    e1=r"e^{z_1/T}",
    S=r"\sum_j e^{z_j/T}",
)
_TEMPERATURES = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.2, 1.5, 2.0)
_TOP_PS = (0.5, 0.8, 0.9, 0.9, 0.95)


def probabilities(logits: tuple[float, ...], temperature: float) -> list[float]:
    """Softmax of logits / temperature, in the logits' order."""
    top = max(logits)
    weights = [math.exp((z - top) / temperature) for z in logits]
    total = math.fsum(weights)
    return [w / total for w in weights]


def nucleus(probs: list[float], top_p: float) -> int:
    """The smallest k whose k most likely tokens reach top_p together."""
    cum = 0.0
    ranked = sorted(probs, reverse=True)
    for k, q in enumerate(ranked, start=1):
        cum += q
        if cum >= top_p - _SLACK:
            return k
    return len(ranked)


def _cumulative(probs: list[float]) -> list[float]:
    out, cum = [], 0.0
    for q in sorted(probs, reverse=True):
        cum += q
        out.append(cum)
    return out


def _near(a: float, b: float, rel: float) -> bool:
    return abs(a - b) <= rel * max(abs(a), abs(b))


@register
class SoftmaxTemperature(Template):
    slug = "softmax-temperature"
    title = "Temperature and top-p on a handful of logits"
    family = "serving"
    lessons = ("how-an-llm-writes-text", "serving-models", "tokens-and-writing-one-word-at-a-time")
    skills = ("softmax", "sampling-temperature", "top-p-sampling")
    difficulty = 2
    version = 1
    Params = SoftmaxParams

    def generate(self, rng: random.Random) -> SoftmaxParams:
        while True:
            z = rng.randint(20, 90) / 10
            logits = [z]
            for _ in range(rng.randint(3, 7)):
                z = round(z - rng.randint(1, 25) / 10, 1)
                logits.append(z)
            p = SoftmaxParams(
                logits=tuple(logits),
                temperature=rng.choice(_TEMPERATURES),
                top_p=rng.choice(_TOP_PS),
            )
            probs = probabilities(p.logits, p.temperature)
            if any(_near(c, p.top_p, 0.005) for c in _cumulative(probs)[:-1]):
                continue
            answer = probs[0]
            plain = probabilities(p.logits, 1.0)[0]
            times = probabilities(tuple(x * p.temperature for x in p.logits), 1.0)[0]
            if any(
                _near(a, b, 0.02) for a, b in ((answer, plain), (answer, times), (plain, times))
            ):
                continue
            return p

    def solve(self, p: SoftmaxParams) -> dict[str, Part]:
        probs = probabilities(p.logits, p.temperature)
        return {
            "p_top": Part("p_top", max(probs) * 100, "%", label="Probability of the top token"),
            "nucleus": Part(
                "nucleus",
                nucleus(probs, p.top_p),
                "",
                kind=Kind.INTEGER,
                tolerance=Exact(),
                label="Tokens kept by top-p",
            ),
        }

    def statement(self, p: SoftmaxParams) -> str:
        n = len(p.logits)
        listed = ", ".join(tex(z, 12) for z in p.logits)
        return (
            f"A language model's {n} most likely next tokens have logits "
            f"$z = ({listed})$, largest first. Treat these {n} tokens as the whole "
            "vocabulary (the rest have negligible probability). The sampler applies a "
            f"temperature $T = {tex(p.temperature, 12)}$ by dividing every logit by $T$ "
            "before the softmax, $p_i = e^{z_i/T} / \\sum_j e^{z_j/T}$, and then top-p "
            f"(nucleus) sampling with $p = {tex(p.top_p, 12)}$: it keeps the smallest set of "
            "most likely tokens whose probabilities, after temperature, add up to at least "
            "$p$.\n\n"
            "1. What is the probability of the most likely token after temperature, in %?\n"
            "2. How many tokens does top-p keep?"
        )

    def solution(self, p: SoftmaxParams) -> str:
        probs = probabilities(p.logits, p.temperature)
        top = max(p.logits)
        scaled = [math.exp((z - top) / p.temperature) for z in p.logits]
        listed = ", ".join(tex(w, 4) for w in scaled)
        k = nucleus(probs, p.top_p)
        cum = _cumulative(probs)
        running = ", ".join(f"{sig(c * 100, 4)}\\%" for c in cum[:k])
        return (
            "Divide the logits by $T$ and exponentiate. Subtracting the largest logit first "
            "changes nothing (it cancels in the ratio) and keeps the numbers small: "
            f"$e^{{(z_i - z_1)/T}} = ({listed})$, which sum to "
            f"${tex(math.fsum(scaled))}$. The top token's probability sets its logit $z_1$ "
            "against the sum over every token $j$ of its logit $z_j$:\n\n"
            + step(P_TOP, {"e1": 1, "S": tex(math.fsum(scaled))}, probs[0])
            + f"\n\nthat is {sig(probs[0] * 100, 6)}%. Adding the probabilities from the most "
            f"likely down gives ${running}$: the first {k} token(s) are the fewest that reach "
            f"$p = {tex(p.top_p * 100, 12)}\\%$, so top-p keeps **{k}** token(s). The top "
            f"token's probability is **{sig(probs[0] * 100, 6)}%**."
        )

    def misconceptions(self, p: SoftmaxParams) -> list[Misconception]:
        probs = probabilities(p.logits, p.temperature)
        k = nucleus(probs, p.top_p)
        plain = probabilities(p.logits, 1.0)
        times = probabilities(tuple(z * p.temperature for z in p.logits), 1.0)
        cooler = "sharpens" if p.temperature < 1 else "flattens"
        out = [
            Misconception(
                "temperature-ignored",
                "p_top",
                plain[0] * 100,
                f"That is the softmax of the raw logits (T = 1). A temperature of "
                f"{sig(p.temperature)} divides every logit first, which {cooler} the "
                "distribution.",
            ),
            Misconception(
                "temperature-multiplied",
                "p_top",
                times[0] * 100,
                f"That multiplies the logits by T. Temperature divides them: z / "
                f"{sig(p.temperature)}.",
            ),
        ]
        before = nucleus(plain, p.top_p)
        if before != k:
            out.append(
                Misconception(
                    "top-p-before-temperature",
                    "nucleus",
                    before,
                    "That counts the nucleus on the probabilities at T = 1. The sampler "
                    "applies the temperature first, and top-p sums the tempered "
                    "probabilities.",
                )
            )
        if k >= 2 and k - 1 != before:
            out.append(
                Misconception(
                    "stops-before-p",
                    "nucleus",
                    k - 1,
                    f"Those tokens add up to less than {sig(p.top_p * 100)}%. Top-p keeps "
                    "the token that carries the sum past p as well.",
                )
            )
        return out
