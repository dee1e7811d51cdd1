"""cooling-load: the heat a liquid-cooled GPU deployment rejects, in BTU/h, and the water
flow its cold plates need for a given coolant temperature rise.

Realism constraints the generator enforces (issue #11):

- IT loads are whole liquid-cooled racks of 40-132 kW (the range of today's
  direct-to-chip AI racks; 132 kW is an NVL72-class rack), one to eight of them.
- Direct-to-chip cold plates take 70-85% of the heat; fans and the room's air handlers
  take the rest. (Immersion, which takes all of it, is left to the reference cases: a
  share above 0.85 would put the "all heat to liquid" slip within a GB/GiB factor.)
- Coolant temperature rises of 5-15 K, the design range of facility and technology
  cooling loops.
- Water: c = 4186 J/(kg K) and 1 kg per litre; heat in International Table BTU
  (1 W = 3600 / 1055.05585262 BTU/h). All IT power becomes heat.
- Every named slip lands at least 2.5% from the answer and from each other slip of its
  part, so the grader can name it.
"""

from __future__ import annotations

import random

from pydantic import Field

from problems.engine.numbers import tex
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import parts_separated

BTU_J = 1055.05585262  # International Table BTU, in joules
WATER_C = 4186  # J/(kg K)
BTU_H_PER_W = 3600 / BTU_J

_RACK_KW = (40, 50, 60, 80, 100, 120, 132)
_RACKS = (1, 2, 3, 4, 6, 8)
_DELTA_T = (5, 6, 8, 10, 12, 15)
_LIQUID = (0.7, 0.75, 0.8, 0.85)


class CoolingParams(Params):
    it_kw: float = Field(gt=0, le=1_000_000)
    delta_t_c: float = Field(gt=0, le=100)
    liquid_fraction: float = Field(gt=0, le=1)


HEAT = formula("Q", lambda s: s.P * 1000 * 3600 / s.B, P=r"P_{\mathrm{IT}}", B=r"1055.05585262")
FLOW = formula(
    "V",
    lambda s: s.P * 1000 * s.f / (s.c * s.T) * 60,
    P=r"P_{\mathrm{IT}}",
    f="f",
    c="c",
    T=r"\Delta T",
)


def _heat(p: CoolingParams) -> float:
    return p.it_kw * 1000 * 3600 / BTU_J


def _flow(p: CoolingParams, share: float | None = None) -> float:
    f = p.liquid_fraction if share is None else share
    return p.it_kw * f * 1000 / (WATER_C * p.delta_t_c) * 60


@register
class CoolingLoad(Template):
    slug = "cooling-load"
    version = 1
    title = "Heat load and coolant flow of liquid-cooled racks"
    family = "power"
    lessons = ("power-cooling-the-ai-data-center",)
    skills = ("cooling-load", "liquid-cooling-flow")
    difficulty = 2
    Params = CoolingParams

    def generate(self, rng: random.Random) -> CoolingParams:
        for _ in range(10_000):
            p = CoolingParams(
                it_kw=float(rng.choice(_RACK_KW) * rng.choice(_RACKS)),
                delta_t_c=float(rng.choice(_DELTA_T)),
                liquid_fraction=rng.choice(_LIQUID),
            )
            if parts_separated(self.solve(p), self.misconceptions(p)):
                return p
        raise RuntimeError("no acceptable cooling-load variant")  # pragma: no cover

    def solve(self, p: CoolingParams) -> dict[str, Part]:
        return {
            "heat": Part("heat", _heat(p), "BTU/h", label="Heat load"),
            "flow": Part("flow", _flow(p), "L/min", label="Water flow"),
        }

    def statement(self, p: CoolingParams) -> str:
        share = tex(p.liquid_fraction * 100, 12)
        return (
            f"Liquid-cooled GPU racks draw $P_{{\\mathrm{{IT}}}} = {tex(p.it_kw, 12)}$ kW of IT "
            "power, and all of it becomes heat. Direct-to-chip cold plates carry "
            f"$f = {tex(p.liquid_fraction, 12)}$ ({share}%) of that heat into the water loop; "
            "the rest goes to the room's air. The water warms by "
            f"$\\Delta T = {tex(p.delta_t_c, 12)}$ K between inlet and outlet. Take water's "
            "specific heat as $c = 4186$ J/(kg·K) and 1 kg of water per litre, and use the "
            "International Table BTU: 1 BTU = 1055.05585262 J, so 1 W = 3600 / 1055.05585262 "
            "BTU/h.\n\n"
            "1. What heat load do the racks put on the cooling plant, in BTU/h (all of it, "
            "liquid and air)?\n"
            "2. What water flow do the cold plates need, in litres per minute?"
        )

    def solution(self, p: CoolingParams) -> str:
        return (
            "Every watt of IT power is a watt of heat; a watt for an hour is 3600 J, and a "
            "BTU is 1055.05585262 J:\n\n"
            + step(HEAT, {"P": p.it_kw, "B": BTU_J}, _heat(p), "BTU/h")
            + "\n\nThe water carries its share of the heat, $f P$, warming by $\\Delta T$: "
            "mass flow $f P / (c \\Delta T)$ in kg/s, which at 1 kg per litre is litres "
            "per second, times 60 for litres per minute:\n\n"
            + step(
                FLOW,
                {"P": p.it_kw, "f": p.liquid_fraction, "c": WATER_C, "T": p.delta_t_c},
                _flow(p),
                "L/min",
            )
        )

    def misconceptions(self, p: CoolingParams) -> list[Misconception]:
        heat = _heat(p)
        out = [
            Misconception(
                "btu-factor-inverted",
                "heat",
                p.it_kw * 1000 / BTU_H_PER_W,
                "That divides by 3.412 instead of multiplying. A BTU is about 1055 J, less "
                "than a watt-hour (3600 J), so a load has more BTU/h than watts.",
            ),
        ]
        if p.liquid_fraction < 1:
            out += [
                Misconception(
                    "liquid-share-only",
                    "heat",
                    heat * p.liquid_fraction,
                    "That counts only the heat the water takes. The air's share must be "
                    "removed too: the plant's load is all the IT power.",
                ),
                Misconception(
                    "all-heat-to-liquid",
                    "flow",
                    _flow(p, 1.0),
                    "That sends all the heat into the water. The cold plates carry only "
                    "the share f; the rest leaves through the air.",
                ),
            ]
        return out
