"""rack-power-servers: whole servers (and their GPUs) within a rack's power budget,
with or without a power cap.
"""

from __future__ import annotations

import math
import random

import sympy
from pydantic import Field

from problems.engine.numbers import exact, sig, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import drop_close_counts, name_list
from problems.templates.power._family import (
    matching_servers,
    powered_servers,
    server_kw_of,
)

# Racks and rooms are provisioned for whole servers; rack-scale systems (tens of kW or
# more per "server") belong to the facility template, not to filling a rack.
_MAX_SERVER_KW_IN_RACK = 25


def _percent(fraction: float) -> str:
    return sig(fraction * 100, 6)


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
        servers = powered_servers(_MAX_SERVER_KW_IN_RACK)
        while True:
            server = rng.choice(servers)
            p = RackParams(
                rack_kw=float(rng.choice(_RACK_KW)),
                server_kw=server_kw_of(server),
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
        names = matching_servers(p.server_kw, p.gpus_per_server)
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
