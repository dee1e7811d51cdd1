"""failure-goodput: the share of wall-clock time left for training after checkpoint
stalls, work lost to failures and restarts, in the first-order model.
"""

from __future__ import annotations

import math
import random

from pydantic import Field
from sympy import UnevaluatedExpr

from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import tex15


class GoodputParams(Params):
    interval_min: float = Field(gt=0, le=1e7)
    checkpoint_min: float = Field(ge=0, le=1e7)
    restart_min: float = Field(ge=0, le=1e7)
    system_mtbf_h: float = Field(gt=0, le=1e7)


WASTE = formula(
    "w",
    lambda s: s.d / s.t + (s.t / 2 + s.R) / s.M,
    d=r"\delta",
    t=r"\tau",
    R="R",
    M="M",
)
GOODPUT = formula("G", lambda s: 100 * UnevaluatedExpr(1 - s.w), w="w")


def _goodput(tau: float, delta: float, restart: float, mtbf_min: float) -> float:
    """100 x (1 - delta/tau - (tau/2 + R)/M), exactly the contract's first-order model.

    Not clamped: when the waste passes 100% the model itself has broken down (failures
    come faster than the job can checkpoint), and the solution says so rather than
    hiding it behind a 0.
    """
    return 100 * (1 - delta / tau - (tau / 2 + restart) / mtbf_min)


@register
class FailureGoodput(Template):
    slug = "failure-goodput"
    title = "Goodput after checkpoints, lost work and restarts"
    family = "checkpointing"
    lessons = ("reliability-cost-at-scale", "troubleshooting-gpu-clusters")
    skills = ("goodput", "checkpoint-interval", "system-mtbf")
    difficulty = 3
    Params = GoodputParams

    def generate(self, rng: random.Random) -> GoodputParams:
        for _ in range(200):
            mtbf_h = float(rng.choice((3.1, 6, 8, 12, 24, 24, 48, 72, 168)))
            delta = float(rng.choice((0.5, 1, 1, 2, 3, 5, 10)))
            restart = float(rng.choice((5, 10, 15, 20, 30, 45, 60)))
            if rng.random() < 0.3:
                # Start from Young's optimum, rounded to a whole number of minutes.
                tau = float(max(1, round(math.sqrt(2 * delta * mtbf_h * 60))))
            else:
                tau = float(rng.choice((10, 15, 20, 30, 45, 60, 90, 120, 180, 240)))
            if tau <= delta:
                continue
            if _goodput(tau, delta, restart, mtbf_h * 60) >= 50:
                break
        return GoodputParams(
            interval_min=tau, checkpoint_min=delta, restart_min=restart, system_mtbf_h=mtbf_h
        )

    def _value(self, p: GoodputParams, **over: float) -> float:
        args = {
            "tau": p.interval_min,
            "delta": p.checkpoint_min,
            "restart": p.restart_min,
            "mtbf_min": p.system_mtbf_h * 60,
        }
        args.update(over)
        return _goodput(**args)

    def solve(self, p: GoodputParams) -> dict[str, Part]:
        return {"goodput": Part("goodput", self._value(p), "%", label="Goodput")}

    def statement(self, p: GoodputParams) -> str:
        return (
            f"A large training job checkpoints every $\\tau = {tex15(p.interval_min)}$ minutes; "
            f"each checkpoint stalls training for $\\delta = {tex15(p.checkpoint_min)}$ minutes. "
            f"The job as a whole fails on average once every $M = {tex15(p.system_mtbf_h)}$ hours. "
            "After a failure it loses the work done since the last checkpoint (half an interval, "
            f"on average) and needs $R = {tex15(p.restart_min)}$ minutes to restart and reload.\n\n"
            "With the first-order model, wasted fraction $= \\delta/\\tau + (\\tau/2 + R)/M$, "
            "what percentage of wall-clock time is useful training (the goodput), in %?"
        )

    def solution(self, p: GoodputParams) -> str:
        mtbf_min = p.system_mtbf_h * 60
        waste = p.checkpoint_min / p.interval_min + (p.interval_min / 2 + p.restart_min) / mtbf_min
        value = self._value(p)
        text = (
            f"Put everything in minutes: $M = {tex15(p.system_mtbf_h)} \\times 60 = "
            f"{tex15(mtbf_min)}$ min. Checkpoints cost $\\delta/\\tau$ of the time; each failure "
            "(one per $M$) costs half an interval of lost work plus the restart:\n\n"
            + step(
                WASTE,
                {"d": p.checkpoint_min, "t": p.interval_min, "R": p.restart_min, "M": mtbf_min},
                waste,
            )
            + "\n\n"
            + step(GOODPUT, {"w": waste}, 100 * (1 - waste), r"\%")
        )
        if value <= 0:
            text += (
                "\n\nThe first-order waste reaches the whole run: the job would make no "
                "progress, and the model, which assumes failures are rare against the interval, "
                "no longer describes it. Checkpoint more often or fix the failure rate."
            )
        return text

    def misconceptions(self, p: GoodputParams) -> list[Misconception]:
        value = self._value(p)
        mtbf_min = p.system_mtbf_h * 60
        out = [
            Misconception(
                "full-interval-lost",
                "goodput",
                max(
                    0.0,
                    100
                    * (
                        1
                        - p.checkpoint_min / p.interval_min
                        - (p.interval_min + p.restart_min) / mtbf_min
                    ),
                ),
                "That loses a whole interval per failure. A failure strikes at a random moment, "
                "so on average half an interval of work is lost.",
            ),
            Misconception(
                "checkpoint-cost-ignored",
                "goodput",
                self._value(p, delta=0),
                "That leaves out the time spent writing checkpoints: delta/tau of every interval.",
            ),
            Misconception(
                "fraction-not-percent",
                "goodput",
                value / 100,
                "That is a fraction. The question asks for a percentage from 0 to 100.",
            ),
            Misconception(
                "waste-not-goodput",
                "goodput",
                100 - value,
                "That is the wasted share. Goodput is what is left: 100% minus the waste.",
            ),
        ]
        if p.restart_min > 0:
            out.append(
                Misconception(
                    "restart-ignored",
                    "goodput",
                    self._value(p, restart=0),
                    "That forgets the restart time R paid after every failure.",
                )
            )
        # full-interval-lost is clamped at 0; a 0 only names a slip when 0 is not the answer.
        return [m for m in out if m.value != 0 or value == 0]
