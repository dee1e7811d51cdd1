"""rack-power-servers: whole servers (and their GPUs) within a rack's power budget,
with or without a power cap, in a rack whose height is stated.

Realism constraints the generator enforces (issue #11):

- Only catalog servers that publish both a maximum system power and a sourced height in
  rack units (`Server.rack_units`) are drawn; a cloud VM size with neither (Azure ND
  MI300X v5) or a box without a published power is never drawn.
- Rack-scale systems (more than 25 kW per "server") belong to the facility template.
- Every generated statement names the rack's height, 42U or 48U, with 2U taken by the
  top-of-rack leaf and management switches; the power-bound answer always fits in the
  space left (servers x U <= rack U - 2), so the answer stays the contract's
  floor(rack_kw / (server_kw x cap)) and space is stated as a limit that does not bind.
  Answering with the space limit instead of the power one is a named slip
  (`space-not-power`).
- Rack provisions are 15-132 kW, as air- and liquid-cooled AI racks are built.
"""

from __future__ import annotations

import math
import random
import zlib

from pydantic import Field

from hardware_db import catalog
from problems.engine.numbers import exact, sig, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, sp, step
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
RACK_HEIGHTS = (42, 48)  # U, the two standard tall racks
SWITCH_U = 2  # one leaf (top-of-rack) switch and one management switch, 1U each


def _percent(fraction: float) -> str:
    return sig(fraction * 100, 6)


class RackParams(Params):
    rack_kw: float = Field(gt=0, le=10_000)
    server_kw: float = Field(gt=0, le=1_000)
    power_cap_fraction: float = Field(gt=0, le=1)
    gpus_per_server: int = Field(ge=1, le=1_000)


SERVERS = formula(
    "n",
    lambda s: sp.floor(s.R / (s.P * s.c)),
    R=r"P_{\mathrm{rack}}",
    P=r"P_{\mathrm{server}}",
    c="c",
)
SPACE = formula(
    "n_U", lambda s: sp.floor(s.H / s.h), H=r"U_{\mathrm{free}}", h=r"U_{\mathrm{server}}"
)
GPUS = formula("g", lambda s: s.n * s.k, n="n", k="k")

_RACK_KW = (15, 17, 20, 25, 30, 35, 40, 45, 50, 60, 70, 80, 100, 120, 132)
_CAPS = (1.0, 1.0, 0.95, 0.9, 0.85, 0.8, 0.75, 0.7)


def _servers(p: RackParams, cap: bool = True) -> int:
    budget = exact(p.server_kw) * (exact(p.power_cap_fraction) if cap else 1)
    return math.floor(exact(p.rack_kw) / budget)


def rack_servers() -> list[catalog.Server]:
    """The servers a rack can be filled with: a published power and a sourced height."""
    return [s for s in powered_servers(_MAX_SERVER_KW_IN_RACK) if s.rack_units]


def server_units(p: RackParams) -> int | None:
    """The height in U of the catalog server these parameters name, if one does."""
    units = {
        s.rack_units
        for s in rack_servers()
        if s.name in matching_servers(p.server_kw, p.gpus_per_server)
    }
    return units.pop() if len(units) == 1 else None


def rack_height(p: RackParams) -> int | None:
    """The rack's height in U for the statement: drawn from the parameters (so the same
    parameters always name the same rack) among the heights whose free space holds the
    power-bound answer; None when the server has no known height or no rack holds it."""
    units = server_units(p)
    if units is None:
        return None
    fits = [h for h in RACK_HEIGHTS if _servers(p) * units <= h - SWITCH_U]
    if not fits:
        return None
    key = f"{p.rack_kw}|{p.server_kw}|{p.power_cap_fraction}|{p.gpus_per_server}"
    return fits[zlib.crc32(key.encode()) % len(fits)]


def _space_servers(p: RackParams) -> int | None:
    height, units = rack_height(p), server_units(p)
    if height is None or units is None:
        return None
    return (height - SWITCH_U) // units


@register
class RackPowerServers(Template):
    slug = "rack-power-servers"
    version = 2
    title = "Servers and GPUs per rack power budget"
    family = "power"
    lessons = ("power-cooling-the-ai-data-center", "anatomy-of-a-gpu-server")
    skills = ("rack-power-budget", "power-capping")
    difficulty = 1
    Params = RackParams

    def generate(self, rng: random.Random) -> RackParams:
        servers = rack_servers()
        while True:
            server = rng.choice(servers)
            p = RackParams(
                rack_kw=float(rng.choice(_RACK_KW)),
                server_kw=server_kw_of(server),
                power_cap_fraction=rng.choice(_CAPS),
                gpus_per_server=server.n_accelerators,
            )
            if _servers(p) >= 1 and rack_height(p) is not None:
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

    def _space_sentence(self, p: RackParams) -> str:
        height, units = rack_height(p), server_units(p)
        if height is None or units is None:
            return " Count power only: rack space is not part of this question."
        return (
            f" The rack is {height}U tall; the top {SWITCH_U}U hold the leaf and management "
            f"switches, leaving {height - SWITCH_U}U for servers, and each server is "
            f"{units}U high. Both limits apply: power and space."
        )

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
            f"power. {cap} The budgeted draw must never exceed the rack's provision."
            f"{self._space_sentence(p)}\n\n"
            "1. How many servers fit in the rack (a whole number)?\n"
            "2. How many GPUs is that (a whole number)?"
        )

    def solution(self, p: RackParams) -> str:
        n = _servers(p)
        text = (
            "Each server is budgeted at its rating times the cap; only whole servers fit, "
            "so round down:\n\n"
            + step(
                SERVERS,
                {"R": p.rack_kw, "P": p.server_kw, "c": p.power_cap_fraction},
                n,
            )
        )
        space, units, height = _space_servers(p), server_units(p), rack_height(p)
        if space is not None and units is not None and height is not None:
            text += (
                f"\n\nSpace allows $U_{{\\mathrm{{free}}}} = {height - SWITCH_U}$U for servers "
                f"of $U_{{\\mathrm{{server}}}} = {units}$U each, whole servers only:\n\n"
                + step(SPACE, {"H": height - SWITCH_U, "h": units}, space)
                + (
                    f"\n\nso power is the binding limit: {n} servers."
                    if space > n
                    else f"\n\nso power and space both allow {n} servers."
                )
            )
        gpus = step(GPUS, {"n": n, "k": p.gpus_per_server}, n * p.gpus_per_server)
        return text + f"\n\nEach server holds $k = {p.gpus_per_server}$ GPUs:\n\n" + gpus

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
        space = _space_servers(p)
        if space is not None and space != n:
            out += [
                Misconception(
                    "space-not-power",
                    part,
                    value,
                    "That is how many servers the rack's free space holds. The rack's power "
                    "provision runs out first: the answer is the smaller of the two limits.",
                )
                for part, value in (("servers", space), ("gpus", space * k))
            ]
        return drop_close_counts(out, {"servers": n, "gpus": n * k})
