"""power-cap-efficiency: why capping a GPU's power costs less speed than the power it
saves, from a measured pair of runs. A team runs the same training job with the GPUs at
their default power limit and capped (`nvidia-smi -pl`, or amd-smi's power cap), and
records the average board power and the throughput of each run. The parts are the power
saved (%), the throughput lost (%), and the change in tokens per joule (%).

Why the speed falls less than the power: a GPU's dynamic power goes as C V^2 f, and the
voltage a clock needs falls with the clock, so near the top of the curve a few percent of
clock costs many percent of power; and the part of the step bound by memory bandwidth or
communication does not slow with the SM clock at all. The generator's curve is our
assumption, not a measurement: throughput kept as (cap / draw)^alpha with alpha drawn
from 0.25-0.4 (a compute-heavy job's power falling about three times faster than its
clock), rounded as a dashboard would show it; the question gives the two runs as
measured and asks only what follows from them.

Realism: catalog GPUs with a published TDP (A100 400 W, H100 and H200 700 W, B200 1000 W,
MI300X 750 W); the default run drawing 90-97% of the TDP on average; caps of 60-85% of
the TDP in 25 W steps; 8-GPU nodes' token rates.

Misconceptions: speed assumed to fall as much as the power (linear-power-speed), the
saving reckoned from the TDP instead of the measured draw (tdp-as-draw), and the
efficiency ratio turned over (ratio-inverted).
"""

from __future__ import annotations

import random

from pydantic import Field, model_validator

from hardware_db import catalog
from problems.engine.numbers import sig
from problems.engine.registry import register
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import parts_separated

GPUS = ("a100-sxm-80gb", "h100-sxm", "h200", "b200", "mi300x")
MODELS = ("Llama 3.1 8B", "Llama 3.1 70B", "Mistral 7B", "Qwen2.5 72B")


class CapParams(Params):
    accelerator: str
    model: int = Field(ge=0, lt=len(MODELS))
    default_watts: float = Field(gt=0)  # measured average at the default limit
    cap_watts: float = Field(gt=0)  # the cap, drawn in full under the capped run
    default_tps: float = Field(gt=0)  # tokens/s per node
    capped_tps: float = Field(gt=0)

    @model_validator(mode="after")
    def _plausible(self) -> CapParams:
        if self.accelerator not in GPUS:
            raise ValueError(f"one of {', '.join(GPUS)}")
        tdp = catalog.accelerator(self.accelerator).tdp_watts
        if not self.cap_watts < self.default_watts <= tdp:
            raise ValueError("the cap lies below the default run's draw, at most the TDP")
        if not self.capped_tps < self.default_tps:
            raise ValueError("a capped run is slower")
        if self.capped_tps / self.default_tps <= self.cap_watts / self.default_watts:
            raise ValueError("measured caps lose less speed than power")
        return self


def figures(p: CapParams) -> tuple[float, float, float]:
    """(power saved %, throughput lost %, tokens per joule change %)."""
    saved = (1 - p.cap_watts / p.default_watts) * 100
    lost = (1 - p.capped_tps / p.default_tps) * 100
    gain = ((p.capped_tps / p.cap_watts) / (p.default_tps / p.default_watts) - 1) * 100
    return saved, lost, gain


@register
class PowerCapEfficiency(Template):
    slug = "power-cap-efficiency"
    title = "Why a power cap costs less speed than the power it saves"
    family = "power"
    lessons = ("power-cooling-the-ai-data-center",)
    skills = ("power-capping",)
    difficulty = 1
    Params = CapParams
    version = 1

    def generate(self, rng: random.Random) -> CapParams:
        for _ in range(10_000):
            acc = rng.choice(GPUS)
            tdp = catalog.accelerator(acc).tdp_watts
            default = round(tdp * rng.uniform(0.90, 0.97) / 5) * 5
            cap = round(tdp * rng.uniform(0.60, 0.85) / 25) * 25
            alpha = rng.uniform(0.25, 0.4)
            tps = rng.choice((9_000, 12_000, 15_000, 20_000, 25_000, 40_000, 60_000))
            capped = round(tps * (cap / default) ** alpha, -1)
            try:
                p = CapParams(
                    accelerator=acc, model=rng.randrange(len(MODELS)), default_watts=default,
                    cap_watts=cap, default_tps=float(tps), capped_tps=float(capped),
                )  # fmt: skip
            except ValueError:
                continue
            if parts_separated(self.solve(p), self.misconceptions(p)):
                return p
        raise RuntimeError("power-cap-efficiency: no separated variant")  # pragma: no cover

    def solve(self, p: CapParams) -> dict[str, Part]:
        saved, lost, gain = figures(p)
        return {
            "power_saved": Part("power_saved", saved, "%", label="Power saved per GPU"),
            "speed_lost": Part("speed_lost", lost, "%", label="Throughput lost"),
            "efficiency_gain": Part("efficiency_gain", gain, "%", label="Change in tokens/J"),
        }

    def statement(self, p: CapParams) -> str:
        acc = catalog.accelerator(p.accelerator)
        return (
            f"A team fine-tunes {MODELS[p.model]} on 8-GPU nodes of the {acc.prose_name} "
            f"(TDP {acc.tdp_watts} W). At the default power limit the GPUs draw "
            f"{sig(p.default_watts)} W each on average and a node trains "
            f"{sig(p.default_tps)} tokens/s. With the GPUs capped at "
            f"{sig(p.cap_watts)} W (they then draw the cap), the node trains "
            f"{sig(p.capped_tps)} tokens/s.\n\n"
            "1. How much power does each GPU save, in % of its measured draw?\n"
            "2. How much throughput does the node lose, in %?\n"
            "3. By how much, in %, do the tokens trained per joule of GPU energy change?"
        )

    def solution(self, p: CapParams) -> str:
        saved, lost, gain = figures(p)
        return (
            f"Power saved: 1 - {sig(p.cap_watts)} / {sig(p.default_watts)} = "
            f"**{sig(saved, 4)}%** (from the measured draw, not the TDP).\n\n"
            f"Throughput lost: 1 - {sig(p.capped_tps)} / {sig(p.default_tps)} = "
            f"**{sig(lost, 4)}%**, far less than the power saved.\n\n"
            f"Tokens per joule: ({sig(p.capped_tps)} / {sig(p.cap_watts)}) / "
            f"({sig(p.default_tps)} / {sig(p.default_watts)}) - 1 = **{sig(gain, 4)}%**.\n\n"
            "Why: a GPU's dynamic power goes as C V^2 f, and the clock it can hold under a "
            "lower cap also needs less voltage, so power falls much faster than the clock "
            "near the top of the curve; and the share of each step bound by memory "
            "bandwidth or communication does not slow with the clock at all. A cap trades "
            "a little speed for a lot of power: more GPUs fit a power budget, and each "
            "token costs less energy."
        )

    def misconceptions(self, p: CapParams) -> list[Misconception]:
        saved, lost, gain = figures(p)
        tdp = catalog.accelerator(p.accelerator).tdp_watts
        ratio = (p.capped_tps / p.cap_watts) / (p.default_tps / p.default_watts)
        return [
            Misconception(
                "linear-power-speed", "speed_lost", saved,
                "Throughput does not fall in proportion to power: read the measured rates.",
            ),
            Misconception(
                "tdp-as-draw", "power_saved", (1 - p.cap_watts / tdp) * 100,
                f"The GPUs drew {sig(p.default_watts)} W on average, not the {tdp} W TDP: "
                "the saving is from what they drew.",
            ),
            Misconception(
                "ratio-inverted", "efficiency_gain", (1 / ratio - 1) * 100,
                "Tokens per joule is throughput over power: the capped run's over the "
                "default run's, minus one.",
            ),
        ]  # fmt: skip
