"""failure-goodput: the share of wall-clock time left for training after checkpoint
stalls, work lost to failures and restarts, in the first-order model.

Realism constraints the generator enforces:

- The job's MTBF is what large runs see: 2 to 24 hours (Llama 3's 16,384-H100 run had one
  unexpected interruption every ~3.1 h: 419 in 54 days, formulas.md section 6).
- Checkpoint stalls of 30 s to 5 min, restarts (reschedule, reload, warm-up) of 5 to
  30 minutes, and intervals of 10 minutes to 3 hours, or Young's optimum rounded.
- The first-order model stays in its valid range: goodput between 65% and 97% (waste far
  below 100%), the interval shorter than the MTBF; the Llama 3 paper reports > 90%.
- Each cost is large enough to matter: the answer and every named slip (restart left
  out, whole interval lost, checkpoint cost left out, waste for goodput, ...) are at
  least 2.5% apart, so the grader names each slip instead of passing it as correct.

Conventions examined: in about a third of variants the checkpoint stall is given in
seconds (as training logs report it) while the rest is in minutes and hours, and in about
a third the failure rate is given as failures per day (over half of the variants have one
or both); each conversion slip is named (seconds-as-minutes, per-day-as-per-hour).
"""

from __future__ import annotations

import math
import random

from pydantic import Field

from problems.engine.numbers import sig, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, sp, step
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import parts_separated, tex15
from problems.templates.checkpointing._family import short


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
GOODPUT = formula("G", lambda s: 100 * sp.UnevaluatedExpr(1 - s.w), w="w")


def _goodput(tau: float, delta: float, restart: float, mtbf_min: float) -> float:
    """100 x (1 - delta/tau - (tau/2 + R)/M), exactly the contract's first-order model.

    Not clamped: when the waste passes 100% the model itself has broken down (failures
    come faster than the job can checkpoint), and the solution says so rather than
    hiding it behind a 0.
    """
    return 100 * (1 - delta / tau - (tau / 2 + restart) / mtbf_min)


MTBF_H = (2, 3, 4, 5, 6, 8, 10, 12, 16, 24)
# Failures per day whose MTBF in hours is not a short number (24 / f).
FAILURES_PER_DAY = (3.5, 4.5, 5.5, 6.5, 7, 9)
CHECKPOINT_MIN = (0.5, 0.75, 1, 1.5, 2, 2.5, 3, 4, 5)
RESTART_MIN = (5, 10, 15, 20, 30)
INTERVAL_MIN = (10, 15, 20, 30, 45, 60, 90, 120, 180)
GOODPUT_RANGE = (65.0, 97.0)


def stall_seconds(p: GoodputParams) -> float | None:
    """The stall in seconds when the statement gives it so: a part-minute of whole seconds."""
    secs = p.checkpoint_min * 60
    if not float(p.checkpoint_min).is_integer() and short(secs, 4) and secs.is_integer():
        return secs
    return None


def failures_per_day(p: GoodputParams) -> float | None:
    """Failures per day when the statement gives the rate: short, where the hours are not."""
    rate = 24 / p.system_mtbf_h
    if short(rate, 3) and not short(p.system_mtbf_h, 4):
        return float(f"{rate:.3g}")
    return None


@register
class FailureGoodput(Template):
    slug = "failure-goodput"
    title = "Goodput after checkpoints, lost work and restarts"
    family = "checkpointing"
    lessons = ("reliability-cost-at-scale", "troubleshooting-gpu-clusters")
    skills = ("goodput", "checkpoint-interval", "system-mtbf")
    difficulty = 3
    Params = GoodputParams

    version = 2

    def generate(self, rng: random.Random) -> GoodputParams:
        for _ in range(10_000):
            if rng.random() < 0.3:
                mtbf_h = 24 / rng.choice(FAILURES_PER_DAY)
            else:
                mtbf_h = float(rng.choice(MTBF_H))
            delta = float(rng.choice(CHECKPOINT_MIN))
            restart = float(rng.choice(RESTART_MIN))
            if rng.random() < 0.3:
                # Start from Young's optimum, rounded to a whole number of minutes.
                tau = float(max(1, round(math.sqrt(2 * delta * mtbf_h * 60))))
            else:
                tau = float(rng.choice(INTERVAL_MIN))
            if not delta < tau < mtbf_h * 60:
                continue
            p = GoodputParams(
                interval_min=tau, checkpoint_min=delta, restart_min=restart, system_mtbf_h=mtbf_h
            )
            if GOODPUT_RANGE[0] <= self._value(p) <= GOODPUT_RANGE[1] and parts_separated(
                self.solve(p), self.misconceptions(p)
            ):
                return p
        raise RuntimeError("no acceptable failure-goodput variant")  # pragma: no cover

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
        secs = stall_seconds(p)
        stall = (
            f"$\\delta = {tex15(secs)}$ seconds"
            if secs is not None
            else f"$\\delta = {tex15(p.checkpoint_min)}$ minutes"
        )
        rate = failures_per_day(p)
        if rate is not None:
            failing = f"The job as a whole fails on average {tex15(rate)} times a day"
        else:
            failing = (
                "The job as a whole fails on average once every "
                f"$M = {tex15(p.system_mtbf_h)}$ hours"
            )
        return (
            f"A large training job checkpoints every $\\tau = {tex15(p.interval_min)}$ minutes; "
            f"each checkpoint stalls training for {stall}. {failing}. "
            "After a failure it loses the work done since the last checkpoint (half an interval, "
            f"on average) and needs $R = {tex15(p.restart_min)}$ minutes to restart and reload.\n\n"
            "With the first-order model, wasted fraction $= \\delta/\\tau + (\\tau/2 + R)/M$ "
            "(all times in one unit, $M$ the job's mean time between failures), "
            "what percentage of wall-clock time is useful training (the goodput), in %?"
        )

    def solution(self, p: GoodputParams) -> str:
        mtbf_min = p.system_mtbf_h * 60
        waste = p.checkpoint_min / p.interval_min + (p.interval_min / 2 + p.restart_min) / mtbf_min
        value = self._value(p)
        secs, rate = stall_seconds(p), failures_per_day(p)
        given = ""
        if secs is not None:
            given += f"$\\delta = {tex15(secs)}$ s $= {tex15(p.checkpoint_min)}$ min. "
        if rate is not None:
            given += (
                f"{sig(rate, 15)} failures a day is one every $24 / {tex15(rate)}$ hours, "
                f"$M = {tex(p.system_mtbf_h, 6)}$ h. "
            )
        text = (
            given + f"Put everything in minutes: $M = {tex(p.system_mtbf_h, 6)} \\times 60 = "
            f"{tex(mtbf_min, 6)}$ min. Checkpoints cost $\\delta/\\tau$ of the time; each failure "
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
        if stall_seconds(p) is not None:
            out.append(
                Misconception(
                    "seconds-as-minutes",
                    "goodput",
                    self._value(p, delta=p.checkpoint_min * 60),
                    "That puts the stall's seconds in as minutes. Convert delta to minutes "
                    "(divide by 60) before dividing by tau.",
                )
            )
        if failures_per_day(p) is not None:
            out.append(
                Misconception(
                    "per-day-as-per-hour",
                    "goodput",
                    self._value(p, mtbf_min=p.system_mtbf_h / 24 * 60),
                    "That takes the failures per day as failures per hour. The MTBF is "
                    "24 / (failures per day) hours.",
                )
            )
        # full-interval-lost is clamped at 0; a 0 only names a slip when 0 is not the answer.
        return [m for m in out if m.value != 0 or value == 0]
