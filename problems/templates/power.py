"""Power family: how many servers a rack budget holds, and what a facility draws and costs."""

from __future__ import annotations

import math
import random

import sympy
from pydantic import Field

from hardware_db import catalog
from problems.engine.numbers import exact, sig, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import drop_close_counts, name_list

# Racks and rooms are provisioned for whole servers; rack-scale systems (tens of kW or
# more per "server") belong to the facility template, not to filling a rack.
_MAX_SERVER_KW_IN_RACK = 25


def _server_kw(server: catalog.Server) -> float:
    return round(server.system_power_watts / 1000, 6)


def _powered_servers(max_kw: float | None = None) -> list[catalog.Server]:
    return [
        s
        for s in catalog.servers()
        if s.system_power_watts and (max_kw is None or s.system_power_watts <= max_kw * 1000)
    ]


def _matching_servers(server_kw: float, gpus_per_server: int | None = None) -> list[str]:
    return [
        s.name
        for s in _powered_servers()
        if math.isclose(_server_kw(s), server_kw, rel_tol=1e-9)
        and (gpus_per_server is None or s.n_accelerators == gpus_per_server)
    ]


def _percent(fraction: float) -> str:
    return sig(fraction * 100, 6)


# --- rack-power-servers ---------------------------------------------------------------------


class RackParams(Params):
    rack_kw: float = Field(gt=0, le=10_000)
    server_kw: float = Field(gt=0, le=1_000)
    power_cap_fraction: float = Field(gt=0, le=1)
    gpus_per_server: int = Field(ge=1, le=1_000)


SERVERS = formula(
    "n",
    lambda s: sympy.floor(s.R / (s.P * s.c)),
    R=r"P_{\mathrm{rack}}",
    P=r"P_{\mathrm{server}}",
    c="c",
)
GPUS = formula("g", lambda s: s.n * s.k, n="n", k="k")

_RACK_KW = (15, 17, 20, 25, 30, 35, 40, 45, 50, 60, 70, 80, 100, 120, 132)
_CAPS = (1.0, 1.0, 0.95, 0.9, 0.85, 0.8, 0.75, 0.7)


def _servers(p: RackParams, cap: bool = True) -> int:
    budget = exact(p.server_kw) * (exact(p.power_cap_fraction) if cap else 1)
    return math.floor(exact(p.rack_kw) / budget)


@register
class RackPowerServers(Template):
    slug = "rack-power-servers"
    title = "Servers and GPUs per rack power budget"
    family = "power"
    lessons = ("power-cooling-the-ai-data-center", "anatomy-of-a-gpu-server")
    skills = ("rack-power-budget", "power-capping")
    difficulty = 1
    Params = RackParams

    def generate(self, rng: random.Random) -> RackParams:
        servers = _powered_servers(_MAX_SERVER_KW_IN_RACK)
        while True:
            server = rng.choice(servers)
            p = RackParams(
                rack_kw=float(rng.choice(_RACK_KW)),
                server_kw=_server_kw(server),
                power_cap_fraction=rng.choice(_CAPS),
                gpus_per_server=server.n_accelerators,
            )
            if 1 <= _servers(p) <= 40:
                return p

    def solve(self, p: RackParams) -> dict[str, Part]:
        n = _servers(p)
        return {
            "servers": Part(
                "servers", n, "", kind=Kind.INTEGER, tolerance=Exact(), label="Servers"
            ),
            "gpus": Part(
                "gpus",
                n * p.gpus_per_server,
                "",
                kind=Kind.INTEGER,
                tolerance=Exact(),
                label="GPUs",
            ),
        }

    def statement(self, p: RackParams) -> str:
        names = _matching_servers(p.server_kw, p.gpus_per_server)
        what = name_list(names) if names else "GPU server"
        if p.power_cap_fraction == 1:
            cap = (
                "No power cap is set (cap fraction $c = 1$), so budget each server at its "
                "full rating."
            )
        else:
            cap = (
                f"Each server is power-capped at $c = {tex(p.power_cap_fraction, 12)}$ "
                f"({_percent(p.power_cap_fraction)}%) of that rating, and you budget it at "
                "the capped figure."
            )
        return (
            f"A rack is provisioned for $P_{{\\mathrm{{rack}}}} = {tex(p.rack_kw, 12)}$ kW. "
            f"You fill it with {what} systems, each holding {p.gpus_per_server} GPUs and "
            f"rated at $P_{{\\mathrm{{server}}}} = {tex(p.server_kw, 12)}$ kW maximum system "
            f"power. {cap} The budgeted draw must never exceed the rack's provision.\n\n"
            "1. How many servers fit in the rack (a whole number)?\n"
            "2. How many GPUs is that (a whole number)?"
        )

    def solution(self, p: RackParams) -> str:
        n = _servers(p)
        return (
            "Each server is budgeted at its rating times the cap; only whole servers fit, "
            "so round down:\n\n"
            + step(
                SERVERS,
                {"R": p.rack_kw, "P": p.server_kw, "c": p.power_cap_fraction},
                n,
            )
            + "\n\n"
            + step(GPUS, {"n": n, "k": p.gpus_per_server}, n * p.gpus_per_server)
        )

    def misconceptions(self, p: RackParams) -> list[Misconception]:
        n = _servers(p)
        k = p.gpus_per_server
        ratio = exact(p.rack_kw) / (exact(p.server_kw) * exact(p.power_cap_fraction))
        out: list[Misconception] = []
        ceil = math.ceil(ratio)
        if ceil != n:
            out += [
                Misconception(
                    "rounded-up",
                    part,
                    value,
                    "That rounds up, and the last server would push the rack over its "
                    "budget. Only whole servers that fit count: round down.",
                )
                for part, value in (("servers", ceil), ("gpus", ceil * k))
            ]
        uncapped = _servers(p, cap=False)
        if uncapped != n:
            out += [
                Misconception(
                    "cap-ignored",
                    part,
                    value,
                    "That budgets each server at its full rating. The power cap lowers "
                    "each server's draw, so more of them fit.",
                )
                for part, value in (("servers", uncapped), ("gpus", uncapped * k))
            ]
        on_rack = math.floor(exact(p.rack_kw) * exact(p.power_cap_fraction) / exact(p.server_kw))
        if on_rack not in (n, uncapped):
            out += [
                Misconception(
                    "cap-on-rack",
                    part,
                    value,
                    "That applies the cap to the rack budget. The cap limits each server's "
                    "draw: divide the rack budget by the capped server power.",
                )
                for part, value in (("servers", on_rack), ("gpus", on_rack * k))
            ]
        return drop_close_counts(out, {"servers": n, "gpus": n * k})


# --- facility-power -------------------------------------------------------------------------


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


def _facility_kw(p: FacilityParams) -> float:
    return p.n_servers * p.server_kw * p.utilization * p.pue


@register
class FacilityPower(Template):
    slug = "facility-power"
    title = "Facility power, annual energy and cost"
    family = "power"
    lessons = ("power-cooling-the-ai-data-center", "reliability-cost-at-scale")
    skills = ("pue", "energy-cost")
    difficulty = 2
    Params = FacilityParams

    def generate(self, rng: random.Random) -> FacilityParams:
        server = rng.choice(_powered_servers())
        per_server = _server_kw(server)
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
        names = _matching_servers(p.server_kw)
        what = f"{name_list(names)} systems" if names else "GPU servers"
        return (
            f"A cluster has $n = {tex(p.n_servers, 12)}$ {what}, each rated at "
            f"$P_{{\\mathrm{{server}}}} = {tex(p.server_kw, 12)}$ kW maximum. Averaged over "
            f"the year, each draws $u = {tex(p.utilization, 12)}$ of that maximum. The data "
            f"center's power usage effectiveness is $\\mathrm{{PUE}} = {tex(p.pue, 12)}$ "
            "(cooling, power conversion and the rest of the building on top of the IT load), "
            f"and electricity costs {sig(p.price_per_kwh, 12)} USD per kWh. Take a year as "
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
            + "\n\nkW times hours is kWh; 1,000 kWh is one MWh:\n\n"
            + step(ENERGY, {"F": kw, "h": HOURS_PER_YEAR}, mwh, "MWh")
            + "\n\nThe bill is the kWh times the price per kWh:\n\n"
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
        return out
