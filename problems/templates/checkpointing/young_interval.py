"""checkpoint-young: Young's first-order interval sqrt(2 delta M), and the job's MTBF
from the node MTBF and the node count.

The generator is the family's (see _family.py for the realism constraints: large jobs,
node MTBFs from published cluster studies, checkpoints of 20 s to 15 min, delta/M in the
range where Young and Daly differ by 4% or more, slips at least 2.5% apart), and the node
failure rate is given per 1,000 node-days in about 40% of variants.
"""

from __future__ import annotations

import random

from problems.engine.numbers import SECONDS, sig
from problems.engine.registry import register
from problems.engine.solutions import formula, sp, step
from problems.engine.template import FactorHints, Misconception, Part, Template
from problems.templates._common import parts_separated, tex15
from problems.templates.checkpointing._family import (
    SYSTEM_MTBF,
    IntervalParams,
    generate_interval,
    interval_misconceptions,
    interval_statement,
    node_mtbf_text,
    node_rate,
    young_s,
)

YOUNG = formula(
    r"\tau_{\mathrm{Young}}",
    lambda s: sp.sqrt(sp.UnevaluatedExpr(2 * s.d * s.M)),
    d=r"\delta",
    M="M",
)


@register
class CheckpointYoung(Template):
    slug = "checkpoint-young"
    title = "Checkpoint interval by Young's formula"
    family = "checkpointing"
    lessons = ("reliability-cost-at-scale", "storage-data-pipelines")
    skills = ("checkpoint-interval", "system-mtbf")
    difficulty = 2
    Params = IntervalParams
    version = 2

    def generate(self, rng: random.Random) -> IntervalParams:
        return generate_interval(
            rng, lambda p: parts_separated(self.solve(p), self.misconceptions(p))
        )

    def solve(self, p: IntervalParams) -> dict[str, Part]:
        mtbf_h = p.node_mtbf_h / p.n_nodes
        tau_s = young_s(p.checkpoint_s, mtbf_h * 3600)
        return {
            "interval": Part(
                "interval", tau_s / SECONDS[p.unit], p.unit, label="Checkpoint interval"
            ),
            "system_mtbf": Part("system_mtbf", mtbf_h, "h", label="Job (system) MTBF"),
        }

    def statement(self, p: IntervalParams) -> str:
        return (
            interval_statement(p, r"Young's first-order rule $\tau = \sqrt{2 \delta M}$")
            + "\n\nAlso give the MTBF $M$ of the job as a whole, in hours."
        )

    def solution(self, p: IntervalParams) -> str:
        mtbf_h = p.node_mtbf_h / p.n_nodes
        mtbf_s = mtbf_h * 3600
        tau_s = young_s(p.checkpoint_s, mtbf_s)
        return node_mtbf_text(p) + (
            "Failures of independent nodes add up, so the job's MTBF is the node MTBF divided by "
            "the number of nodes:\n\n"
            + step(SYSTEM_MTBF, {"m": p.node_mtbf_h, "n": p.n_nodes}, mtbf_h, "h")
            + f"\n\nIn seconds that is $M = {tex15(mtbf_s)}$ s, the unit of $\\delta$. Then\n\n"
            + step(YOUNG, {"d": tex15(p.checkpoint_s), "M": tex15(mtbf_s)}, tau_s, "s")
            + f"\n\nwhich is **{sig(tau_s / SECONDS[p.unit], 6)} {p.unit}**."
        )

    def misconceptions(self, p: IntervalParams) -> list[Misconception]:
        interval = self.solve(p)["interval"].value
        out = interval_misconceptions(p, "interval", young_s, interval)
        if p.n_nodes > 1:
            out += [
                Misconception(
                    "node-mtbf-not-divided",
                    "system_mtbf",
                    p.node_mtbf_h,
                    "That is one node's MTBF. The job stops when any node fails, so its MTBF is "
                    f"the node MTBF divided by {p.n_nodes}.",
                ),
                Misconception(
                    "mtbf-multiplied",
                    "system_mtbf",
                    p.node_mtbf_h * p.n_nodes,
                    "More nodes make failures more frequent, not rarer: divide the node MTBF by "
                    "the node count instead of multiplying.",
                ),
            ]
        if node_rate(p) is not None:
            out.append(
                Misconception(
                    "days-as-hours",
                    "system_mtbf",
                    p.node_mtbf_h / 24 / p.n_nodes,
                    "That reads 1,000 / r node-days as hours. A node-day is 24 node-hours: "
                    "M_node = 24,000 / r hours.",
                )
            )
        return out

    def factor_hints(self, p: IntervalParams) -> FactorHints:
        return FactorHints(parallelism=p.n_nodes)
