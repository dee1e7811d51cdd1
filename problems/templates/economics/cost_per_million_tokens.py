"""cost-per-mtok: the GPU cost of one million output tokens from the GPU-hour price, the
GPUs of one serving replica and the replica's output throughput. The slips named are
pricing one GPU instead of the replica, dividing the hourly price by 60 instead of 3,600,
and pricing a thousand tokens instead of a million.

Realism constraints the generator enforces:

- The GPU is a catalog part that clouds rent for LLM serving (A100 80GB, H100 SXM, H200,
  B200, MI300X, L40S) and is named in the statement. Hourly prices are assumed bands of
  on-demand rental prices of the order clouds list for that part (a teaching assumption,
  stated as the price of this deployment, not a sourced quote).
- A replica is 1, 2, 4 or 8 GPUs (one server's tensor-parallel group at most); the
  replica's output throughput is 400 to 24,000 tok/s, growing with the GPU count, what
  a batched decode of a mid-sized model reaches.
- Every named slip lands at least 2.5% from the answer and from each other.
"""

from __future__ import annotations

import random

from pydantic import Field

from hardware_db import catalog
from problems.engine.numbers import sig
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import parts_separated, tex15

# catalog slug -> (low, high) USD per GPU-hour (assumed on-demand band)
PRICE_BANDS = {
    "a100-sxm-80gb": (1.2, 2.2),
    "h100-sxm": (2.0, 4.0),
    "h200": (3.0, 5.0),
    "b200": (4.5, 7.0),
    "mi300x": (2.0, 4.0),
    "l40s": (0.8, 1.6),
}
GPU_COUNTS = (1, 2, 4, 8)
PER_GPU_TOKENS = (400, 600, 750, 900, 1200, 1500, 1800, 2400, 3000)

COST = formula(
    "c",
    lambda s: s.P * s.n / 3600 / s.T * 10**6,
    P="P",
    n="n",
    T="T",
)


class CostParams(Params):
    gpu_hour_usd: float = Field(gt=0, le=1000)
    n_gpus: int = Field(ge=1, le=100_000)
    tokens_per_s: float = Field(gt=0, le=1e9)


def _cost(price: float, n: int, tps: float) -> float:
    return price * n / 3600 / tps * 1e6


def _gpu_name(slug: str) -> str:
    return catalog.accelerator(slug).name.split(" (")[0]


def gpu_for(p: CostParams) -> str | None:
    """The catalog GPU the statement names: one whose price band holds the price, chosen
    by a stable function of the parameters (the generator keeps only variants whose
    drawn GPU this returns); None when no band holds the price."""
    fits = [
        g for g in sorted(PRICE_BANDS) if PRICE_BANDS[g][0] <= p.gpu_hour_usd <= PRICE_BANDS[g][1]
    ]
    if not fits:
        return None
    key = round(p.gpu_hour_usd * 100) + 7 * p.n_gpus + round(p.tokens_per_s)
    return fits[key % len(fits)]


@register
class CostPerMillionTokens(Template):
    slug = "cost-per-mtok"
    title = "GPU cost per million output tokens"
    family = "economics"
    lessons = (
        "prefill-decode-and-the-cost-of-a-token",
        "reliability-cost-at-scale",
        "the-layers-and-the-build-or-buy-ladder",
    )
    skills = ("cost-per-token", "gpu-hour-pricing")
    difficulty = 1
    Params = CostParams
    version = 1

    def generate(self, rng: random.Random) -> CostParams:
        for _ in range(10_000):
            gpu = rng.choice(sorted(PRICE_BANDS))
            low, high = PRICE_BANDS[gpu]
            price = round(rng.uniform(low, high) * 20) / 20
            n = rng.choice(GPU_COUNTS)
            tps = rng.choice(PER_GPU_TOKENS) * n * rng.choice((1, 1, 0.75))
            p = CostParams(gpu_hour_usd=price, n_gpus=n, tokens_per_s=float(tps))
            if gpu_for(p) == gpu and parts_separated(self.solve(p), self.misconceptions(p)):
                return p
        raise RuntimeError("no acceptable cost-per-mtok variant")  # pragma: no cover

    def solve(self, p: CostParams) -> dict[str, Part]:
        value = _cost(p.gpu_hour_usd, p.n_gpus, p.tokens_per_s)
        return {
            "usd_per_mtok": Part(
                "usd_per_mtok", value, "USD", label="Cost per million output tokens"
            )
        }

    def statement(self, p: CostParams) -> str:
        gpu = gpu_for(p)
        part = f"{_gpu_name(gpu)} GPU" if gpu else "GPU"
        gpus = f"one {part}" if p.n_gpus == 1 else f"$n = {p.n_gpus}$ {part}s"
        return (
            f"One replica of a model is served on {gpus}, rented at "
            f"$P = {tex15(p.gpu_hour_usd)}$ USD per GPU-hour. Under steady load the replica "
            f"produces $T = {tex15(p.tokens_per_s)}$ output tokens per second in total "
            "(all its concurrent requests together).\n\n"
            "Counting only the GPU rental, billed for every second and fully used at this "
            "throughput, what does the replica charge for **one million** (10^6) output "
            "tokens, in USD?"
        )

    def solution(self, p: CostParams) -> str:
        value = _cost(p.gpu_hour_usd, p.n_gpus, p.tokens_per_s)
        per_s = p.gpu_hour_usd * p.n_gpus / 3600
        return (
            f"The replica's $n = {p.n_gpus}$ GPU{'' if p.n_gpus == 1 else 's'} cost "
            f"$n P = {tex15(p.gpu_hour_usd * p.n_gpus)}$ USD per hour, "
            f"or {sig(per_s, 6)} USD per second (3,600 s in an hour). In that second it "
            f"produces {sig(p.tokens_per_s, 6)} tokens, so one million tokens cost\n\n"
            + step(
                COST, {"P": p.gpu_hour_usd, "n": p.n_gpus, "T": tex15(p.tokens_per_s)}, value, "USD"
            )
            + f"\n\nthat is **{sig(value, 6)} USD** per million output tokens."
        )

    def misconceptions(self, p: CostParams) -> list[Misconception]:
        value = _cost(p.gpu_hour_usd, p.n_gpus, p.tokens_per_s)
        out: list[Misconception] = []
        if p.n_gpus > 1:
            out.append(
                Misconception(
                    "one-gpu-not-replica",
                    "usd_per_mtok",
                    value / p.n_gpus,
                    f"That prices one GPU. The replica rents {p.n_gpus} GPUs, and together "
                    "they produce the throughput: multiply the hourly price by the GPU count.",
                )
            )
        out += [
            Misconception(
                "hour-as-60-seconds",
                "usd_per_mtok",
                value * 60,
                "That divides the hourly price by 60. An hour has 3,600 seconds.",
            ),
            Misconception(
                "per-thousand-tokens",
                "usd_per_mtok",
                value / 1000,
                "That is the cost of a thousand tokens. The question asks for a million.",
            ),
        ]
        return out
