"""leaf-spine-switches: the leaf and spine switches of a two-tier non-blocking leaf-spine
fabric for N endpoints from switches of radix k, and the most endpoints the design can
reach (k^2 / 2). The slips named are leaves that use all k ports for endpoints, rounding
the leaf count down, counting spine uplinks instead of spine switches, k/2 spines (the
full-mesh build), k^2 endpoints (every port down) and the three-tier fat tree's k^3 / 4.

Realism constraints the generator enforces:

- Switch radixes of real data-center switches, named in the statement: 40 ports (NVIDIA
  Quantum QM8700, HDR InfiniBand 200 Gb/s), 64 ports (NVIDIA Quantum-2 QM9700, NDR
  InfiniBand 400 Gb/s) and 128 ports (NVIDIA Spectrum-4 SN5600, 64 ports of 800 GbE each
  split into two 400 GbE ports).
- Endpoints are the GPUs' network ports, one per GPU, in whole 8-GPU servers: N is a
  multiple of 8 from 8·(k/16) up to k^2/2, with at least two leaves, so the fabric is
  a real two-tier network and never past what two tiers reach.
- Integer parts are exact (ceil on whole numbers). A slip is named only where it lands
  2.5% or more from the answer: rounding the leaves down is named up to about 40 leaves
  (one leaf short of more is a near miss), and k/2 spines only when the answer is not
  within 2.5% of it.
"""

from __future__ import annotations

import random

from pydantic import Field, model_validator

from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import separated

SWITCHES = {
    40: "NVIDIA Quantum QM8700 (40 ports of HDR InfiniBand, 200 Gb/s)",
    64: "NVIDIA Quantum-2 QM9700 (64 ports of NDR InfiniBand, 400 Gb/s)",
    128: "NVIDIA Spectrum-4 SN5600 (64 ports of 800 GbE, each split into two 400 GbE ports)",
}


class LeafSpineParams(Params):
    n_endpoints: int = Field(ge=1, le=10_000_000)
    radix: int = Field(ge=2, le=4096)

    @model_validator(mode="after")
    def _two_tiers_reach(self) -> LeafSpineParams:
        if self.radix % 2:
            raise ValueError("the radix must be even (half the ports down, half up)")
        if self.n_endpoints > self.radix**2 // 2:
            raise ValueError("more endpoints than a two-tier leaf-spine of this radix reaches")
        return self


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def leaves(p: LeafSpineParams) -> int:
    return _ceil_div(p.n_endpoints, p.radix // 2)


def spines(p: LeafSpineParams) -> int:
    return _ceil_div(leaves(p) * (p.radix // 2), p.radix)


LEAVES = formula("L", lambda s: s.N / (s.k / 2), N="N", k="k")
SPINES = formula("S", lambda s: s.L * (s.k / 2) / s.k, L="L", k="k")
MAX = formula(r"N_{\max}", lambda s: s.k * (s.k / 2), k="k")


def _int(name: str, value: int, label: str) -> Part:
    return Part(name, int(value), "", kind=Kind.INTEGER, tolerance=Exact(), label=label)


@register
class LeafSpineSwitches(Template):
    slug = "leaf-spine-switches"
    title = "Switches of a two-tier leaf-spine fabric"
    family = "networking"
    lessons = ("ai-networking-infiniband-roce",)
    skills = ("leaf-spine-sizing", "switch-radix")
    difficulty = 2
    Params = LeafSpineParams
    version = 1

    def generate(self, rng: random.Random) -> LeafSpineParams:
        k = rng.choice(sorted(SWITCHES))
        servers = rng.randint(max(1, k // 16) + 1, k * k // 16)
        return LeafSpineParams(n_endpoints=8 * servers, radix=k)

    def solve(self, p: LeafSpineParams) -> dict[str, Part]:
        return {
            "leaves": _int("leaves", leaves(p), "Leaf switches"),
            "spines": _int("spines", spines(p), "Spine switches"),
            "max_endpoints": _int("max_endpoints", p.radix**2 // 2, "Most endpoints"),
        }

    def statement(self, p: LeafSpineParams) -> str:
        switch = SWITCHES.get(p.radix)
        named = f", such as the {switch}" if switch else ""
        return (
            f"A cluster has $N = {p.n_endpoints}$ endpoints (GPU network ports, one switch "
            "port each). They are connected by a **two-tier non-blocking leaf-spine** fabric "
            f"(not a three-tier fat tree) built from switches of radix $k = {p.radix}$ "
            f"ports{named}. Each leaf uses $k/2$ ports for endpoints and $k/2$ ports as "
            "uplinks to the spines; each spine uses all $k$ ports for leaf uplinks. Count "
            "switches by ports only: round each count up to a whole switch.\n\n"
            "1. How many leaf switches are needed?\n"
            "2. How many spine switches are needed?\n"
            f"3. What is the largest number of endpoints a two-tier leaf-spine of radix "
            f"{p.radix} switches can connect?"
        )

    def solution(self, p: LeafSpineParams) -> str:
        k, n_leaves = p.radix, leaves(p)
        return (
            f"Each leaf serves $k/2 = {k // 2}$ endpoints, so the leaves are\n\n"
            + step(LEAVES, {"N": p.n_endpoints, "k": k}, f"{p.n_endpoints / (k // 2):.4g}")
            + f"\n\nrounded up: **{n_leaves} leaves**. They bring "
            f"{n_leaves} × {k // 2} = {n_leaves * k // 2} uplinks, and a spine takes $k$ of "
            "them:\n\n"
            + step(SPINES, {"L": n_leaves, "k": k}, f"{n_leaves * (k // 2) / k:.4g}")
            + f"\n\nrounded up: **{spines(p)} spines**. A spine has $k$ ports, at most one "
            f"per leaf, so there are at most $k$ leaves of $k/2$ endpoints each:\n\n"
            + step(MAX, {"k": k}, k * k // 2)
            + f"\n\nthat is **{k * k // 2} endpoints**."
        )

    def misconceptions(self, p: LeafSpineParams) -> list[Misconception]:
        k, n_leaves = p.radix, leaves(p)
        slips = [
            Misconception(
                "all-ports-down",
                "leaves",
                _ceil_div(p.n_endpoints, k),
                f"That connects {k} endpoints to each leaf. Half a leaf's ports are uplinks: "
                f"only k/2 = {k // 2} go to endpoints.",
            ),
            Misconception(
                "rounded-down",
                "leaves",
                p.n_endpoints // (k // 2),
                "That rounds down and leaves some endpoints without a port: round up.",
            ),
            Misconception(
                "uplinks-not-switches",
                "spines",
                n_leaves * (k // 2),
                f"That counts the leaves' uplinks. Each spine takes {k} of them: divide by k.",
            ),
            Misconception(
                "full-mesh-spines",
                "spines",
                k // 2,
                "That is the spine count of a full build in which every leaf links to every "
                "spine. The question counts ports only: uplinks over k, rounded up.",
            ),
            Misconception(
                "all-ports-endpoints",
                "max_endpoints",
                k * k,
                "That puts all k ports of each of k leaves on endpoints. Half of each leaf's "
                "ports are uplinks: k · k/2.",
            ),
            Misconception(
                "three-tier-fat-tree",
                "max_endpoints",
                k**3 // 4,
                "That is the three-tier k-ary fat tree's k^3/4. A two-tier leaf-spine reaches "
                "k^2/2.",
            ),
        ]
        # Name a slip only where it is 2.5% or more from the answer (a count off by one
        # among 100 leaves grades as a near miss, not as this slip).
        answers = self.solve(p)
        return [m for m in slips if separated([m.value, answers[m.part].value])]
