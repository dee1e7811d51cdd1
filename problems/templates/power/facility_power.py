"""facility-power: a cluster's average facility draw with PUE, its annual energy and
its electricity bill.

Realism constraints the generator enforces (issue #11): servers are catalog systems
with a published maximum power (DGX A100, H100, B200); fleets stay under 50 MW of IT
load; PUE 1.08-1.6, average utilization 50-100%, prices 0.04-0.20 USD per kWh.

Conventions examined: in two fifths of the variants (from a hash of the parameters) the
price is quoted per MWh, as power-purchase agreements and wholesale markets quote it,
and the learner converts to kWh; multiplying kWh by the per-MWh price (1,000x too much)
is the named slip `price-per-mwh`.
"""

from __future__ import annotations

import random
import zlib

from pydantic import Field

from problems.engine.numbers import sig, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import name_list
from problems.templates.power._family import (
    matching_servers,
    powered_servers,
    server_kw_of,
)


class FacilityParams(Params):
    n_servers: int = Field(ge=1, le=10_000_000)
    server_kw: float = Field(gt=0, le=1_000)
    pue: float = Field(ge=1, le=5)
    utilization: float = Field(gt=0, le=1)
    price_per_kwh: float = Field(gt=0, le=10)


HOURS_PER_YEAR = 8760

FACILITY = formula(
    r"P_{\mathrm{facility}}",
    lambda s: s.n * s.P * s.u * s.e,
    n="n",
    P=r"P_{\mathrm{server}}",
    u="u",
    e=r"\mathrm{PUE}",
)
ENERGY = formula(r"E", lambda s: s.F * s.h / 1000, F=r"P_{\mathrm{facility}}", h="h")
COST = formula(
    r"C", lambda s: s.F * s.h * s.k, F=r"P_{\mathrm{facility}}", h="h", k=r"p_{\mathrm{kWh}}"
)

_FLEET = (16, 32, 64, 96, 127, 128, 256, 500, 512, 1000, 1024, 2048, 4096)
_PUES = (1.08, 1.1, 1.15, 1.2, 1.25, 1.3, 1.4, 1.5, 1.6)
_UTILIZATION = (0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 1.0)
_PRICES = (0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1, 0.12, 0.15, 0.2)


def price_per_mwh(p: FacilityParams) -> bool:
    """Two fifths of the statements quote the price per MWh."""
    key = f"{p.n_servers}|{p.server_kw}|{p.pue}|{p.utilization}|{p.price_per_kwh}"
    return zlib.crc32(key.encode()) % 5 < 2


def _price(p: FacilityParams) -> str:
    if price_per_mwh(p):
        return f"{sig(p.price_per_kwh * 1000, 12)} USD per MWh"
    return f"{sig(p.price_per_kwh, 12)} USD per kWh"


def _facility_kw(p: FacilityParams) -> float:
    return p.n_servers * p.server_kw * p.utilization * p.pue


@register
class FacilityPower(Template):
    slug = "facility-power"
    version = 2
    title = "Facility power, annual energy and cost"
    family = "power"
    lessons = ("power-cooling-the-ai-data-center", "reliability-cost-at-scale")
    skills = ("pue", "energy-cost")
    difficulty = 2
    Params = FacilityParams

    def generate(self, rng: random.Random) -> FacilityParams:
        server = rng.choice(powered_servers())
        per_server = server_kw_of(server)
        # Rack-scale systems come in tens, not thousands.
        fleet = [n for n in _FLEET if n * per_server <= 50_000]
        return FacilityParams(
            n_servers=rng.choice(fleet),
            server_kw=per_server,
            pue=rng.choice(_PUES),
            utilization=rng.choice(_UTILIZATION),
            price_per_kwh=rng.choice(_PRICES),
        )

    def solve(self, p: FacilityParams) -> dict[str, Part]:
        kw = _facility_kw(p)
        return {
            "facility_kw": Part("facility_kw", kw, "kW", label="Facility power"),
            "annual_mwh": Part(
                "annual_mwh", kw * HOURS_PER_YEAR / 1000, "MWh", label="Annual energy"
            ),
            "annual_cost": Part(
                "annual_cost",
                kw * HOURS_PER_YEAR * p.price_per_kwh,
                "USD",
                label="Annual electricity cost",
            ),
        }

    def statement(self, p: FacilityParams) -> str:
        names = matching_servers(p.server_kw)
        what = f"{name_list(names)} systems" if names else "GPU servers"
        return (
            f"A cluster has $n = {tex(p.n_servers, 12)}$ {what}, each rated at "
            f"$P_{{\\mathrm{{server}}}} = {tex(p.server_kw, 12)}$ kW maximum. Averaged over "
            f"the year, each draws $u = {tex(p.utilization, 12)}$ of that maximum. The data "
            f"center's power usage effectiveness is $\\mathrm{{PUE}} = {tex(p.pue, 12)}$ "
            "(cooling, power conversion and the rest of the building on top of the IT load), "
            f"and electricity costs {_price(p)}. Take a year as "
            "8,760 hours.\n\n"
            "1. What is the facility's average power draw, in kW?\n"
            "2. How much energy does it use in a year, in MWh?\n"
            "3. What does that energy cost per year, in USD?"
        )

    def solution(self, p: FacilityParams) -> str:
        kw = _facility_kw(p)
        mwh = kw * HOURS_PER_YEAR / 1000
        cost = kw * HOURS_PER_YEAR * p.price_per_kwh
        return (
            "The IT load is servers x rating x utilization; PUE scales it up to the whole "
            "facility:\n\n"
            + step(
                FACILITY,
                {"n": p.n_servers, "P": p.server_kw, "u": p.utilization, "e": p.pue},
                kw,
                "kW",
            )
            + f"\n\nkW times hours is kWh, over the year's $h = {tex(HOURS_PER_YEAR)}$ hours; "
            "1,000 kWh is one MWh:\n\n"
            + step(ENERGY, {"F": kw, "h": HOURS_PER_YEAR}, mwh, "MWh")
            + (
                f"\n\n{_price(p)} is {sig(p.price_per_kwh, 12)} USD per kWh (1 MWh is 1,000 kWh). "
                if price_per_mwh(p)
                else "\n\n"
            )
            + "The bill is the kWh times the price per kWh, "
            f"$p_{{\\mathrm{{kWh}}}} = {tex(p.price_per_kwh, 12)}$ USD:\n\n"
            + step(COST, {"F": kw, "h": HOURS_PER_YEAR, "k": p.price_per_kwh}, cost, "USD")
        )

    def misconceptions(self, p: FacilityParams) -> list[Misconception]:
        kw = _facility_kw(p)
        it_kw = p.n_servers * p.server_kw * p.utilization
        peak_kw = p.n_servers * p.server_kw * p.pue
        out: list[Misconception] = []
        for part, scale in (
            ("facility_kw", 1.0),
            ("annual_mwh", HOURS_PER_YEAR / 1000),
            ("annual_cost", HOURS_PER_YEAR * p.price_per_kwh),
        ):
            out += [
                Misconception(
                    "pue-ignored",
                    part,
                    it_kw * scale,
                    "That is the IT load alone. PUE is facility power over IT power, so "
                    "multiply by it to include cooling and power distribution.",
                ),
                Misconception(
                    "pue-divided",
                    part,
                    it_kw / p.pue * scale,
                    "That divides by PUE. PUE is at least 1 and the facility draws more "
                    "than its IT equipment: multiply.",
                ),
                Misconception(
                    "utilization-ignored",
                    part,
                    peak_kw * scale,
                    "That assumes every server draws its maximum all year. Scale by the "
                    "average utilization.",
                ),
            ]
        out += [
            Misconception(
                "unit-scale",
                "annual_mwh",
                kw * HOURS_PER_YEAR,
                "That is the energy in kWh. Divide by 1,000 for MWh.",
            ),
            Misconception(
                "unit-scale",
                "annual_cost",
                kw * HOURS_PER_YEAR / 1000 * p.price_per_kwh,
                "That multiplies MWh by a price per kWh, 1,000 times too little. Use kWh "
                "with a price per kWh.",
            ),
        ]
        if price_per_mwh(p):
            out.append(
                Misconception(
                    "price-per-mwh",
                    "annual_cost",
                    kw * HOURS_PER_YEAR * p.price_per_kwh * 1000,
                    "That multiplies kWh by the price per MWh, 1,000 times too much. "
                    "Convert the price to USD per kWh (divide by 1,000) or the energy to MWh.",
                )
            )
        return out
