"""accelerator-ranking: three catalog GPUs serving one model, ranked by cost per million
tokens at one cloud's list prices and by tokens per second per kilowatt of board power.

Cost per million tokens is the GPU-hour price over the tokens one GPU makes in an hour,
c = price / (3600 T) x 10^6; energy efficiency is T / (TDP / 1000). The cheapest part per
token and the most efficient per kW need not be the same, nor the part with the lowest
hourly price or the highest throughput: the slips named pick those instead.

Prices are hardware_db/data/prices.yaml's sourced, dated on-demand list prices (each
record cites its source), taken at ONE provider, as the capstone brief does, so that the
comparison means something: AWS (H100 SXM p5, H200 p5en, A100 80GB p4de, L40S g6e) or
Lambda (B200, H100 SXM, A100 80GB); parts a provider does not list are not drawn. Power is
each part's TDP from accelerators.yaml.

Realism: the model is a catalog 7-8B dense model that one GPU of each part holds in BF16;
each GPU's stated decode throughput is a batched decode proportional to its HBM bandwidth
(800-1,500 tokens/s per TB/s across the variant, each part within 15% of that), far below
60% of its dense BF16 peak at 2N FLOPs per token. Ranks are kept at least 2.5% apart, so no
answer hangs on a tie.
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import field_validator, model_validator

from hardware_db import catalog
from hardware_db.prices import prices
from problems.engine.numbers import params_count, sig
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import choice_part, separated, tex15

Provider = Literal["AWS", "Lambda"]
_MODELS = ("llama-3.1-8b", "llama-2-7b", "mistral-7b")
_PER_TBPS = (800, 1000, 1200, 1500)
_JITTER = (0.85, 0.9, 0.95, 1.0, 1.05, 1.1, 1.15)
_SEPARATION = 0.025

COST = formula("c", lambda s: s.P / (3600 * s.T) * 10**6, P="P", T="T")
PER_KW = formula(r"\eta", lambda s: s.T / (s.W / 1000), T="T", W="W")


def price(provider: str, slug: str) -> float | None:
    """The provider's first listed USD per GPU-hour for the part (None if not listed)."""
    for r in prices():
        if r.provider == provider and r.accelerator == slug:
            return r.usd_per_gpu_hour
    return None


def offered(provider: str) -> tuple[str, ...]:
    return tuple(sorted({r.accelerator for r in prices() if r.provider == provider}))


class RankingParams(Params):
    provider: Provider
    model: str
    gpus: tuple[str, str, str]
    tokens_per_s: tuple[float, float, float]

    @field_validator("model")
    @classmethod
    def _known_model(cls, v: str) -> str:
        if v not in _MODELS:
            raise ValueError(f"model must be one of {list(_MODELS)}")
        return v

    @field_validator("tokens_per_s")
    @classmethod
    def _positive(cls, v: tuple[float, float, float]) -> tuple[float, float, float]:
        if not all(0 < x <= 1e7 for x in v):
            raise ValueError("throughputs must be positive and at most 10^7 tokens/s")
        return v

    @model_validator(mode="after")
    def _priced(self) -> RankingParams:
        if len(set(self.gpus)) != 3:
            raise ValueError("three different GPUs")
        missing = [g for g in self.gpus if price(self.provider, g) is None]
        if missing:
            raise ValueError(f"{self.provider} lists no price for {missing}")
        return self


def costs(p: RankingParams) -> list[float]:
    return [
        price(p.provider, g) / (3600 * t) * 1e6 for g, t in zip(p.gpus, p.tokens_per_s, strict=True)
    ]


def per_kw(p: RankingParams) -> list[float]:
    return [
        t / (catalog.accelerator(g).tdp_watts / 1000)
        for g, t in zip(p.gpus, p.tokens_per_s, strict=True)
    ]


def _argmin(values: list[float]) -> int:
    return min(range(len(values)), key=values.__getitem__)


def _argmax(values: list[float]) -> int:
    return max(range(len(values)), key=values.__getitem__)


@register
class AcceleratorRanking(Template):
    slug = "accelerator-ranking"
    title = "Ranking accelerators by cost per token and tokens per kW"
    family = "economics"
    lessons = ("the-accelerator-landscape", "llm-inference-at-scale")
    skills = ("accelerator-selection", "cost-per-token", "energy-cost")
    difficulty = 2
    version = 1
    Params = RankingParams

    def generate(self, rng: random.Random) -> RankingParams:
        while True:
            provider = rng.choice(("AWS", "Lambda"))
            gpus = tuple(rng.sample(offered(provider), 3))
            per_tbps = rng.choice(_PER_TBPS)
            tps = tuple(
                float(
                    round(
                        catalog.accelerator(g).mem_bw_bytes_per_s / 1e12
                        * per_tbps
                        * rng.choice(_JITTER),
                        -1,
                    )
                )
                for g in gpus
            )  # fmt: skip
            p = RankingParams(
                provider=provider, model=rng.choice(_MODELS), gpus=gpus, tokens_per_s=tps
            )
            if (
                separated(costs(p), _SEPARATION)
                and separated(per_kw(p), _SEPARATION)
                and len({m.code for m in self.misconceptions(p)}) >= 2
            ):
                return p

    def solve(self, p: RankingParams) -> dict[str, Part]:
        c, e = costs(p), per_kw(p)
        cheap, best = _argmin(c), _argmax(e)
        return {
            "cheapest": choice_part("cheapest", p.gpus[cheap], p.gpus, "Cheapest per token"),
            "cost": Part("cost", c[cheap], "USD/Mtok", label="Its cost per million tokens"),
            "most_efficient": choice_part(
                "most_efficient", p.gpus[best], p.gpus, "Most tokens per kW"
            ),
            "per_kw": Part("per_kw", e[best], "tok/s/kW", label="Its tokens/s per kW"),
        }

    def statement(self, p: RankingParams) -> str:
        m = catalog.model(p.model)
        rows = "\n".join(
            f"| `{g}` | {catalog.accelerator(g).short_name} | {sig(price(p.provider, g))} "
            f"| {catalog.accelerator(g).tdp_watts} | {sig(t)} |"
            for g, t in zip(p.gpus, p.tokens_per_s, strict=True)
        )
        return (
            f"You are choosing a GPU to serve **{m.name}** ({params_count(m.total_params)} "
            f"parameters, BF16, one GPU per replica) on {p.provider}, at its on-demand list "
            "prices. Each part's decode throughput per GPU at your batch size was measured; "
            "count each GPU's power as its TDP (board power):\n\n"
            "| part | GPU | USD per GPU-hour | TDP (W) | tokens/s per GPU |\n"
            "|---|---|---|---|---|\n" + rows + "\n\n"
            "Which part makes a million tokens cheapest, and at what cost, in USD per "
            "million tokens? Which part makes the most tokens per second per kW of board "
            "power, and how many, in tokens/s per kW?"
        )

    def solution(self, p: RankingParams) -> str:
        c, e = costs(p), per_kw(p)
        cheap, best = _argmin(c), _argmax(e)
        lines = []
        for i, g in enumerate(p.gpus):
            acc = catalog.accelerator(g)
            lines.append(
                f"- `{g}`: {sig(c[i], 4)} USD/Mtok, {sig(e[i], 4)} tok/s per kW "
                f"(price {sig(price(p.provider, g))} USD/h, {sig(p.tokens_per_s[i])} tok/s, "
                f"{acc.tdp_watts} W)."
            )
        g, w = p.gpus[cheap], catalog.accelerator(p.gpus[best]).tdp_watts
        return (
            "A GPU-hour makes $3600\\,T$ tokens at $T$ tokens/s, so a million tokens cost "
            "the hourly price $P$ over that, times $10^{6}$; and a kW of board power makes "
            "$T$ over the TDP $W$ in kW. For the cheapest part, "
            f"`{g}` ($P = {tex15(price(p.provider, g))}$ USD/h, "
            f"$T = {tex15(p.tokens_per_s[cheap])}$):\n\n"
            + step(COST, {"P": price(p.provider, g), "T": p.tokens_per_s[cheap]}, c[cheap])
            + f"\n\nFor the most efficient, `{p.gpus[best]}` ($T = "
            f"{tex15(p.tokens_per_s[best])}$ tok/s, $W = {w}$ W):\n\n"
            + step(PER_KW, {"T": p.tokens_per_s[best], "W": w}, e[best])
            + "\n\nAll three:\n\n"
            + "\n".join(lines)
            + f"\n\nCheapest: **{g}**, **{sig(c[cheap], 6)} USD/Mtok**. Most tokens per kW: "
            f"**{p.gpus[best]}**, **{sig(e[best], 6)} tok/s per kW**."
        )

    def misconceptions(self, p: RankingParams) -> list[Misconception]:
        c, e = costs(p), per_kw(p)
        cheap, best = _argmin(c), _argmax(e)
        hourly = _argmin([price(p.provider, g) for g in p.gpus])
        fastest = _argmax(list(p.tokens_per_s))
        coolest = _argmin([catalog.accelerator(g).tdp_watts for g in p.gpus])
        out: list[Misconception] = []
        if hourly != cheap:
            why = (
                "That is the lowest hourly price. A token's cost is the price over the "
                "tokens an hour makes: a dearer GPU that makes more tokens can be cheaper."
            )
            out += [
                Misconception("lowest-hourly-price", "cheapest", p.gpus[hourly], why),
                Misconception("lowest-hourly-price", "cost", c[hourly], why),
            ]
        if fastest != cheap:
            out.append(
                Misconception(
                    "fastest-is-cheapest",
                    "cheapest",
                    p.gpus[fastest],
                    "That is the fastest part. Its price per hour is higher too: compare "
                    "price over throughput.",
                )
            )
        if fastest != best:
            why = (
                "That is the fastest part, not the most efficient: divide each "
                "throughput by the part's power."
            )
            out += [
                Misconception("fastest-is-efficient", "most_efficient", p.gpus[fastest], why),
                Misconception("fastest-is-efficient", "per_kw", e[fastest], why),
            ]
        if coolest != best and coolest != fastest:
            out.append(
                Misconception(
                    "lowest-power-is-efficient",
                    "most_efficient",
                    p.gpus[coolest],
                    "That is the part that draws least. Efficiency is tokens per kW: "
                    "throughput over power.",
                )
            )
        solved = self.solve(p)
        kept: list[Misconception] = []
        for m in out:
            if m.part in ("cost", "per_kw"):
                others = [solved[m.part].value, *(k.value for k in kept if k.part == m.part)]
                if not all(separated([v, m.value], _SEPARATION) for v in others):
                    continue
            kept.append(m)
        return kept
