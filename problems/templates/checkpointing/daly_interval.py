"""checkpoint-daly: Daly's higher-order checkpoint interval; Young's interval and the
sqrt(2 delta M) - delta shortcut are named as slips.

The generator is the family's (see _family.py for the realism constraints). It keeps
delta/M between 0.75% and 6%, so Young's interval is 4% to 15% longer than Daly's and the
shortcut 2% to 8% shorter: each is graded wrong and named, never passed as correct.
The node failure rate is given per 1,000 node-days in about 40% of variants.
"""

from __future__ import annotations

import math
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
    young_s,
)


def _daly_s(delta_s: float, mtbf_s: float) -> float:
    """Daly (2006): sqrt(2dM)(1 + sqrt(x)/3 + x/9) - d with x = d/(2M) when d < 2M, else M."""
    if delta_s >= 2 * mtbf_s:
        return mtbf_s
    x = delta_s / (2 * mtbf_s)
    return math.sqrt(2 * delta_s * mtbf_s) * (1 + math.sqrt(x) / 3 + x / 9) - delta_s


DALY_X = formula("x", lambda s: s.d / (2 * s.M), d=r"\delta", M="M")
DALY = formula(
    r"\tau_{\mathrm{Daly}}",
    lambda s: (
        sp.sqrt(sp.UnevaluatedExpr(2 * s.d * s.M))
        * sp.UnevaluatedExpr(1 + sp.sqrt(s.x) / 3 + s.x / 9)
        - s.d
    ),
    d=r"\delta",
    M="M",
    x="x",
)


@register
class CheckpointDaly(Template):
    slug = "checkpoint-daly"
    title = "Checkpoint interval by Daly's formula"
    family = "checkpointing"
    lessons = ("reliability-cost-at-scale", "storage-data-pipelines")
    skills = ("checkpoint-interval", "system-mtbf")
    difficulty = 3
    Params = IntervalParams
    version = 2

    def generate(self, rng: random.Random) -> IntervalParams:
        return generate_interval(
            rng, lambda p: parts_separated(self.solve(p), self.misconceptions(p))
        )

    def _seconds(self, p: IntervalParams) -> float:
        return _daly_s(p.checkpoint_s, p.node_mtbf_h * 3600 / p.n_nodes)

    def solve(self, p: IntervalParams) -> dict[str, Part]:
        return {
            "interval": Part(
                "interval",
                self._seconds(p) / SECONDS[p.unit],
                p.unit,
                label="Checkpoint interval",
            )
        }

    def statement(self, p: IntervalParams) -> str:
        return interval_statement(
            p,
            "Daly's higher-order estimate "
            r"$\tau = \sqrt{2 \delta M}\,\left(1 + \frac{1}{3}\sqrt{x} + \frac{1}{9}x\right)"
            r" - \delta$"
            r" with $x = \delta / (2M)$ (and $\tau = M$ when $\delta \ge 2M$), where $M$ is the "
            "MTBF of the whole job",
        )

    def solution(self, p: IntervalParams) -> str:
        mtbf_h = p.node_mtbf_h / p.n_nodes
        mtbf_s = mtbf_h * 3600
        tau_s = self._seconds(p)
        text = node_mtbf_text(p) + (
            "Any node failure stops the job, so its MTBF is the node MTBF over the node count:\n\n"
            + step(SYSTEM_MTBF, {"m": p.node_mtbf_h, "n": p.n_nodes}, mtbf_h, "h")
            + f"\n\nIn seconds, the unit of $\\delta$: $M = {tex15(mtbf_s)}$ s.\n\n"
        )
        if p.checkpoint_s >= 2 * mtbf_s:
            return text + (
                f"Here $\\delta = {tex15(p.checkpoint_s)}$ s is at least $2M$, "
                "so Daly's rule gives "
                f"$\\tau = M$: **{sig(mtbf_s / SECONDS[p.unit], 6)} {p.unit}**."
            )
        x = p.checkpoint_s / (2 * mtbf_s)
        young = young_s(p.checkpoint_s, mtbf_s) / SECONDS[p.unit]
        return (
            text
            + step(DALY_X, {"d": tex15(p.checkpoint_s), "M": tex15(mtbf_s)}, x)
            + "\n\n"
            + step(DALY, {"d": tex15(p.checkpoint_s), "M": tex15(mtbf_s), "x": x}, tau_s, "s")
            + f"\n\nwhich is **{sig(tau_s / SECONDS[p.unit], 6)} {p.unit}**. Young's "
            f"$\\sqrt{{2\\delta M}}$ would give {sig(young, 6)} {p.unit}; "
            "Daly's correction matters more as $\\delta$ approaches $M$."
        )

    def misconceptions(self, p: IntervalParams) -> list[Misconception]:
        unit = SECONDS[p.unit]
        mtbf_s = p.node_mtbf_h * 3600 / p.n_nodes
        interval = self._seconds(p) / unit
        out = interval_misconceptions(p, "interval", _daly_s, interval)
        out += [
            Misconception(
                "young-not-daly",
                "interval",
                young_s(p.checkpoint_s, mtbf_s) / unit,
                "That is Young's first-order interval. Daly's estimate adds the correction terms "
                "and subtracts the checkpoint time delta.",
            ),
            Misconception(
                "daly-shortcut",
                "interval",
                (young_s(p.checkpoint_s, mtbf_s) - p.checkpoint_s) / unit,
                "That is the shortcut sqrt(2 delta M) - delta. Daly's formula also multiplies "
                "by (1 + sqrt(x)/3 + x/9).",
            ),
        ]
        return out

    def factor_hints(self, p: IntervalParams) -> FactorHints:
        return FactorHints(parallelism=p.n_nodes)
