"""gpu-power-cap: a server's draw with every GPU power-capped below its TDP, and how many
such servers a rack's power provision holds.

Realism constraints the generator enforces (issue #11):

- Only catalog servers that publish a maximum system power are drawn (NVIDIA DGX A100,
  DGX H100, DGX B200), with their GPU count and their GPUs' published TDP, and the
  statement names the server and its GPU.
- GPU power caps are what operators set with `nvidia-smi -pl`: 50% to 90% of the GPU's
  TDP, in 25 W steps, above the GPU's minimum settable limit.
- Capping lowers only the GPUs' draw: CPUs, memory, NICs and fans keep theirs, so the
  server's rating drops by gpus x (TDP - cap).
- Rack provisions are 15-132 kW, as air- and liquid-cooled AI racks are built, and hold
  at least one capped server.
- Every named slip lands at least 2.5% from the answer and from each other slip of its
  part, so the grader can name it.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction

from pydantic import Field, model_validator

from hardware_db import catalog
from problems.engine.numbers import exact, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, sp, step
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import drop_close_counts, name_list, parts_separated
from problems.templates.power._family import matching_servers, powered_servers, server_kw_of

_RACK_KW = (15, 17, 20, 25, 30, 35, 40, 45, 50, 60, 70, 80, 100, 120, 132)
_CAP_SHARES = (0.5, 0.9)  # of the TDP
_CAP_STEP_W = 25


class CapParams(Params):
    server_kw: float = Field(gt=0, le=1_000)
    gpus_per_server: int = Field(ge=1, le=1_000)
    gpu_tdp_w: float = Field(gt=0, le=10_000)
    gpu_cap_w: float = Field(gt=0, le=10_000)
    rack_kw: float = Field(gt=0, le=10_000)

    @model_validator(mode="after")
    def _cap_below_tdp(self) -> CapParams:
        if self.gpu_cap_w > self.gpu_tdp_w:
            raise ValueError("the cap cannot exceed the GPU's TDP")
        if _capped(self) <= 0:
            raise ValueError("the GPUs draw more than the whole server")
        return self


CAPPED = formula(
    r"P_{\mathrm{capped}}",
    lambda s: s.P - s.g * (s.T - s.C) / 1000,
    P=r"P_{\mathrm{server}}",
    g="g",
    T=r"P_{\mathrm{TDP}}",
    C=r"P_{\mathrm{cap}}",
)
SERVERS = formula(
    "n",
    lambda s: sp.floor(s.R / s.Q),
    R=r"P_{\mathrm{rack}}",
    Q=r"P_{\mathrm{capped}}",
)


def _capped(p: CapParams) -> Fraction:
    return exact(p.server_kw) - p.gpus_per_server * (exact(p.gpu_tdp_w) - exact(p.gpu_cap_w)) / 1000


def _servers(p: CapParams, server: Fraction | None = None) -> int:
    return math.floor(exact(p.rack_kw) / (_capped(p) if server is None else server))


def _gpu(p: CapParams) -> str | None:
    names = {
        catalog.accelerator(s.accelerator).short_name
        for s in powered_servers()
        if s.name in matching_servers(p.server_kw, p.gpus_per_server)
        and catalog.accelerator(s.accelerator).tdp_watts == p.gpu_tdp_w
    }
    return names.pop() if len(names) == 1 else None


@register
class GpuPowerCap(Template):
    slug = "gpu-power-cap"
    version = 1
    title = "Power-capping GPUs to fit more servers in a rack"
    family = "power"
    lessons = ("power-cooling-the-ai-data-center", "anatomy-of-a-gpu-server")
    skills = ("power-capping", "rack-power-budget")
    difficulty = 2
    Params = CapParams

    def generate(self, rng: random.Random) -> CapParams:
        servers = [s for s in powered_servers() if catalog.accelerator(s.accelerator).tdp_watts]
        for _ in range(10_000):
            server = rng.choice(servers)
            tdp = catalog.accelerator(server.accelerator).tdp_watts
            lo = math.ceil(tdp * _CAP_SHARES[0] / _CAP_STEP_W) * _CAP_STEP_W
            hi = math.floor(tdp * _CAP_SHARES[1] / _CAP_STEP_W) * _CAP_STEP_W
            cap = rng.randrange(lo, hi + 1, _CAP_STEP_W)
            p = CapParams(
                server_kw=server_kw_of(server),
                gpus_per_server=server.n_accelerators,
                gpu_tdp_w=float(tdp),
                gpu_cap_w=float(cap),
                rack_kw=float(rng.choice(_RACK_KW)),
            )
            if _servers(p) < 1:
                continue
            if parts_separated(self.solve(p), self.misconceptions(p)):
                return p
        raise RuntimeError("no acceptable gpu-power-cap variant")  # pragma: no cover

    def solve(self, p: CapParams) -> dict[str, Part]:
        return {
            "capped_server": Part(
                "capped_server", float(_capped(p)), "kW", label="Capped server draw"
            ),
            "servers": Part(
                "servers", _servers(p), "", kind=Kind.INTEGER, tolerance=Exact(), label="Servers"
            ),
        }

    def statement(self, p: CapParams) -> str:
        names = matching_servers(p.server_kw, p.gpus_per_server)
        what = f"an {name_list(names)}" if names else "a GPU server"
        gpu = _gpu(p)
        gpus = f"{p.gpus_per_server} {gpu} GPUs" if gpu else f"{p.gpus_per_server} GPUs"
        return (
            f"A rack is provisioned for $P_{{\\mathrm{{rack}}}} = {tex(p.rack_kw, 12)}$ kW. "
            f"Each server is {what} with {gpus}, rated at "
            f"$P_{{\\mathrm{{server}}}} = {tex(p.server_kw, 12)}$ kW maximum system power "
            f"with every GPU at its TDP of $P_{{\\mathrm{{TDP}}}} = {tex(p.gpu_tdp_w, 12)}$ W. "
            f"The operator caps every GPU at $P_{{\\mathrm{{cap}}}} = {tex(p.gpu_cap_w, 12)}$ W. "
            "The cap lowers only the GPUs' draw; the rest of the server (CPUs, memory, "
            "network cards, fans) draws what it did. Budget each server at its capped "
            "maximum; the budgeted draw must never exceed the rack's provision.\n\n"
            "1. What is one capped server's maximum draw, in kW?\n"
            "2. How many whole servers fit in the rack's power budget?"
        )

    def solution(self, p: CapParams) -> str:
        capped = float(_capped(p))
        return (
            f"Each of the server's $g = {p.gpus_per_server}$ GPUs gives up its TDP minus its "
            "cap; the rest of the server is unchanged:\n\n"
            + step(
                CAPPED,
                {"P": p.server_kw, "g": p.gpus_per_server, "T": p.gpu_tdp_w, "C": p.gpu_cap_w},
                capped,
                "kW",
            )
            + "\n\nOnly whole servers fit, so round down:\n\n"
            + step(SERVERS, {"R": p.rack_kw, "Q": capped}, _servers(p))
        )

    def misconceptions(self, p: CapParams) -> list[Misconception]:
        n = _servers(p)
        capped = _capped(p)
        g = p.gpus_per_server
        out: list[Misconception] = []
        scaled = exact(p.server_kw) * exact(p.gpu_cap_w) / exact(p.gpu_tdp_w)
        out.append(
            Misconception(
                "whole-server-scaled",
                "capped_server",
                float(scaled),
                "That scales the whole server by cap / TDP. Only the GPUs are capped: "
                "subtract gpus x (TDP - cap) from the server's rating.",
            )
        )
        once = exact(p.server_kw) - (exact(p.gpu_tdp_w) - exact(p.gpu_cap_w)) / 1000
        out.append(
            Misconception(
                "one-gpu-capped",
                "capped_server",
                float(once),
                f"That takes one GPU's saving off the server. All {g} GPUs are capped: "
                f"the saving is {g} x (TDP - cap).",
            )
        )
        only = g * exact(p.gpu_cap_w) / 1000
        out.append(
            Misconception(
                "gpus-only",
                "capped_server",
                float(only),
                "That counts only the GPUs. The server's CPUs, memory, network cards and "
                "fans still draw power: start from the server's rating.",
            )
        )
        ceil = math.ceil(exact(p.rack_kw) / capped)
        if ceil != n:
            out.append(
                Misconception(
                    "rounded-up",
                    "servers",
                    ceil,
                    "That rounds up, and the last server would push the rack over its "
                    "budget. Only whole servers that fit count: round down.",
                )
            )
        uncapped = _servers(p, exact(p.server_kw))
        out.append(
            Misconception(
                "cap-ignored",
                "servers",
                uncapped,
                "That budgets each server at its full rating. The cap lowers each "
                "server's draw, so more of them fit.",
            )
        )
        out.append(
            Misconception(
                "whole-server-scaled",
                "servers",
                _servers(p, scaled),
                "That scales the whole server by cap / TDP. Only the GPUs are capped, so "
                "each server draws more than that and fewer fit.",
            )
        )
        out = [m for m in out if m.value > 0 and (m.part != "servers" or m.value != n)]
        return drop_close_counts(out, {"servers": n})
