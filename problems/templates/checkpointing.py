"""Checkpointing family: optimal checkpoint interval (Young, Daly), checkpoint size and
write time, and the goodput left after checkpoints and failures."""

from __future__ import annotations

import math
import random
from typing import Literal

from pydantic import Field
from sympy import UnevaluatedExpr, sqrt

from hardware_db import catalog
from problems.engine.numbers import SECONDS, params_count, sig
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import FactorHints, Misconception, Params, Part, Template
from problems.templates._common import model_with_params, sig15, tex15

IntervalUnit = Literal["min", "h"]
OTHER_TIME = {"min": "h", "h": "min"}
UNIT_WORD = {"min": "minutes", "h": "hours", "s": "seconds"}
GB = 1e9

# Realistic inputs: cluster sizes in nodes, per-node MTBF in hours (Llama 3's 16,384-GPU run
# saw one unexpected interruption every ~3.1 h across 2,048 nodes, about 6,300 h per node),
# and checkpoint write times in seconds.
NODE_COUNTS = (8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
NODE_MTBF_H = (2000, 5000, 6300, 8000, 10000, 20000, 50000)
CHECKPOINT_S = (10, 20, 30, 45, 60, 90, 120, 180, 300, 600)


def _young_s(delta_s: float, mtbf_s: float) -> float:
    return math.sqrt(2 * delta_s * mtbf_s)


def _daly_s(delta_s: float, mtbf_s: float) -> float:
    """Daly (2006): sqrt(2dM)(1 + sqrt(x)/3 + x/9) - d with x = d/(2M) when d < 2M, else M."""
    if delta_s >= 2 * mtbf_s:
        return mtbf_s
    x = delta_s / (2 * mtbf_s)
    return math.sqrt(2 * delta_s * mtbf_s) * (1 + math.sqrt(x) / 3 + x / 9) - delta_s


class IntervalParams(Params):
    checkpoint_s: float = Field(gt=0, le=1e7)
    node_mtbf_h: float = Field(gt=0, le=1e8)
    n_nodes: int = Field(ge=1, le=10_000_000)
    unit: IntervalUnit


SYSTEM_MTBF = formula("M", lambda s: s.m / s.n, m=r"M_{\mathrm{node}}", n="n")
YOUNG = formula(
    r"\tau_{\mathrm{Young}}", lambda s: sqrt(UnevaluatedExpr(2 * s.d * s.M)), d=r"\delta", M="M"
)
DALY_X = formula("x", lambda s: s.d / (2 * s.M), d=r"\delta", M="M")
DALY = formula(
    r"\tau_{\mathrm{Daly}}",
    lambda s: (
        sqrt(UnevaluatedExpr(2 * s.d * s.M)) * UnevaluatedExpr(1 + sqrt(s.x) / 3 + s.x / 9) - s.d
    ),
    d=r"\delta",
    M="M",
    x="x",
)


def _generate_interval(rng: random.Random) -> IntervalParams:
    while True:
        n = rng.choice(NODE_COUNTS)
        node_mtbf = float(rng.choice(NODE_MTBF_H))
        delta = float(rng.choice(CHECKPOINT_S))
        mtbf_s = node_mtbf * 3600 / n
        # Keep to the regime the formulas are meant for: a checkpoint much shorter than M.
        if delta <= 0.25 * mtbf_s:
            break
    tau_s = _young_s(delta, mtbf_s)
    # Prefer the unit that gives a readable number, but not always.
    natural = "h" if tau_s >= 2 * 3600 else "min"
    unit = natural if rng.random() < 0.75 else OTHER_TIME[natural]
    return IntervalParams(checkpoint_s=delta, node_mtbf_h=node_mtbf, n_nodes=n, unit=unit)


def _interval_statement(p: IntervalParams, rule: str) -> str:
    nodes = "one node" if p.n_nodes == 1 else f"$n = {p.n_nodes}$ nodes"
    return (
        f"A training job runs on {nodes}. Each node fails on its own, at random, with a mean "
        f"time between failures of $M_{{\\mathrm{{node}}}} = {tex15(p.node_mtbf_h)}$ hours, and "
        "any node failure stops the whole job. Writing one checkpoint takes "
        f"$\\delta = {tex15(p.checkpoint_s)}$ seconds.\n\n"
        f"Using {rule}, how often should the job checkpoint? Give the interval in "
        f"{UNIT_WORD[p.unit]}."
    )


def _interval_misconceptions(
    p: IntervalParams, part: str, rule, correct: float
) -> list[Misconception]:
    """Mistakes shared by Young's and Daly's interval; `rule(delta_s, mtbf_s)` in seconds."""
    unit = SECONDS[p.unit]
    mtbf_s = p.node_mtbf_h * 3600 / p.n_nodes
    out = [
        Misconception(
            "wrong-time-unit",
            part,
            correct * (60 if p.unit == "h" else 1 / 60),
            f"That is the interval in {UNIT_WORD[OTHER_TIME[p.unit]]}; the question asks for "
            f"{UNIT_WORD[p.unit]}.",
        ),
    ]
    if p.n_nodes > 1:
        out.insert(
            0,
            Misconception(
                "node-mtbf-not-divided",
                part,
                rule(p.checkpoint_s, p.node_mtbf_h * 3600) / unit,
                f"That uses one node's MTBF. With {p.n_nodes} nodes any failure stops the job, "
                f"so the job fails {p.n_nodes} times as often: M = M_node / n.",
            ),
        )
    if rule is _young_s:
        out.append(
            Misconception(
                "young-missing-factor-2",
                part,
                math.sqrt(p.checkpoint_s * mtbf_s) / unit,
                "That drops the 2 under the square root: Young's interval is sqrt(2 delta M).",
            )
        )
    return out


@register
class CheckpointYoung(Template):
    slug = "checkpoint-young"
    title = "Checkpoint interval by Young's formula"
    family = "checkpointing"
    lessons = ("reliability-cost-at-scale", "storage-data-pipelines")
    skills = ("checkpoint-interval", "system-mtbf")
    difficulty = 2
    Params = IntervalParams

    def generate(self, rng: random.Random) -> IntervalParams:
        return _generate_interval(rng)

    def solve(self, p: IntervalParams) -> dict[str, Part]:
        mtbf_h = p.node_mtbf_h / p.n_nodes
        tau_s = _young_s(p.checkpoint_s, mtbf_h * 3600)
        return {
            "interval": Part(
                "interval", tau_s / SECONDS[p.unit], p.unit, label="Checkpoint interval"
            ),
            "system_mtbf": Part("system_mtbf", mtbf_h, "h", label="Job (system) MTBF"),
        }

    def statement(self, p: IntervalParams) -> str:
        return (
            _interval_statement(p, r"Young's first-order rule $\tau = \sqrt{2 \delta M}$")
            + "\n\nAlso give the MTBF $M$ of the job as a whole, in hours."
        )

    def solution(self, p: IntervalParams) -> str:
        mtbf_h = p.node_mtbf_h / p.n_nodes
        mtbf_s = mtbf_h * 3600
        tau_s = _young_s(p.checkpoint_s, mtbf_s)
        return (
            "Failures of independent nodes add up, so the job's MTBF is the node MTBF divided by "
            "the number of nodes:\n\n"
            + step(SYSTEM_MTBF, {"m": p.node_mtbf_h, "n": p.n_nodes}, mtbf_h, "h")
            + f"\n\nIn seconds that is $M = {tex15(mtbf_s)}$ s, the unit of $\\delta$. Then\n\n"
            + step(YOUNG, {"d": tex15(p.checkpoint_s), "M": tex15(mtbf_s)}, tau_s, "s")
            + f"\n\nwhich is **{sig(tau_s / SECONDS[p.unit], 6)} {p.unit}**."
        )

    def misconceptions(self, p: IntervalParams) -> list[Misconception]:
        interval = self.solve(p)["interval"].value
        out = _interval_misconceptions(p, "interval", _young_s, interval)
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
        return out

    def factor_hints(self, p: IntervalParams) -> FactorHints:
        return FactorHints(parallelism=p.n_nodes)


@register
class CheckpointDaly(Template):
    slug = "checkpoint-daly"
    title = "Checkpoint interval by Daly's formula"
    family = "checkpointing"
    lessons = ("reliability-cost-at-scale", "storage-data-pipelines")
    skills = ("checkpoint-interval", "system-mtbf")
    difficulty = 3
    Params = IntervalParams

    def generate(self, rng: random.Random) -> IntervalParams:
        return _generate_interval(rng)

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
        return _interval_statement(
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
        text = (
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
        young = _young_s(p.checkpoint_s, mtbf_s) / SECONDS[p.unit]
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
        out = _interval_misconceptions(p, "interval", _daly_s, interval)
        out += [
            Misconception(
                "young-not-daly",
                "interval",
                _young_s(p.checkpoint_s, mtbf_s) / unit,
                "That is Young's first-order interval. Daly's estimate adds the correction terms "
                "and subtracts the checkpoint time delta.",
            ),
            Misconception(
                "daly-shortcut",
                "interval",
                (_young_s(p.checkpoint_s, mtbf_s) - p.checkpoint_s) / unit,
                "That is the shortcut sqrt(2 delta M) - delta. Daly's formula also multiplies "
                "by (1 + sqrt(x)/3 + x/9).",
            ),
        ]
        return out

    def factor_hints(self, p: IntervalParams) -> FactorHints:
        return FactorHints(parallelism=p.n_nodes)


# ---------------------------------------------------------------------------------------
# checkpoint-write-time


class WriteParams(Params):
    n_params: float = Field(gt=0, le=1e14)
    state: Literal["full", "weights"]
    storage_bw_gbps: float = Field(gt=0, le=1e7)


BYTES_PER_PARAM = {"full": 14, "weights": 2}
CKPT_SIZE = formula("S", lambda s: s.N * s.b / s.u, N="N", b="b", u="u")
WRITE_TIME = formula("t", lambda s: s.S / s.B, S="S", B="B")
STORAGE_GBPS = (5, 10, 20, 25, 50, 100, 200, 500, 1000, 2000)


@register
class CheckpointWriteTime(Template):
    slug = "checkpoint-write-time"
    title = "Checkpoint size and write time"
    family = "checkpointing"
    lessons = ("storage-data-pipelines", "reliability-cost-at-scale", "gpu-memory-math")
    skills = ("checkpoint-size", "storage-bandwidth")
    difficulty = 1
    Params = WriteParams

    def generate(self, rng: random.Random) -> WriteParams:
        model = rng.choice(catalog.models())
        return WriteParams(
            n_params=float(model.total_params),
            state=rng.choice(("full", "full", "weights")),
            storage_bw_gbps=float(rng.choice(STORAGE_GBPS)),
        )

    def _size_gb(self, p: WriteParams) -> float:
        return p.n_params * BYTES_PER_PARAM[p.state] / GB

    def solve(self, p: WriteParams) -> dict[str, Part]:
        size = self._size_gb(p)
        return {
            "size": Part("size", size, "GB", label="Checkpoint size"),
            "write_time": Part(
                "write_time", size / p.storage_bw_gbps, "s", label="Checkpoint write time"
            ),
        }

    def statement(self, p: WriteParams) -> str:
        model = model_with_params(p.n_params)
        who = f"**{model.name}**" if model else "a model"
        if p.state == "full":
            what = (
                "the **full training state**: BF16 weights (2 bytes), FP32 master weights "
                "(4 bytes) and Adam's FP32 first and second moments (4 + 4 bytes), 14 bytes per "
                "parameter (gradients are not saved)"
            )
        else:
            what = "the **weights only**, in BF16 (2 bytes per parameter)"
        return (
            f"You checkpoint {who}, {params_count(p.n_params)} parameters "
            f"($N = {tex15(p.n_params)}$). The checkpoint holds {what}. The storage system "
            f"absorbs writes from the job at $B = {tex15(p.storage_bw_gbps)}$ GB/s in aggregate "
            "(1 GB $= 10^{9}$ bytes).\n\n"
            "1. How large is the checkpoint, in GB?\n"
            "2. How long does it take to write, in seconds, if the storage bandwidth is the only "
            "limit?"
        )

    def solution(self, p: WriteParams) -> str:
        b = BYTES_PER_PARAM[p.state]
        size = self._size_gb(p)
        why = (
            "Full state is $2 + 4 + 4 + 4 = 14$ bytes per parameter."
            if p.state == "full"
            else "BF16 weights are 2 bytes per parameter."
        )
        return (
            f"{why}\n\n"
            + step(CKPT_SIZE, {"N": p.n_params, "b": b, "u": "10^{9}"}, size, "GB")
            + "\n\n"
            + step(WRITE_TIME, {"S": size, "B": p.storage_bw_gbps}, size / p.storage_bw_gbps, "s")
        )

    def misconceptions(self, p: WriteParams) -> list[Misconception]:
        size = self._size_gb(p)
        bw = p.storage_bw_gbps
        out: list[Misconception] = []

        def both(code: str, wrong_size: float, feedback: str) -> None:
            out.append(Misconception(code, "size", wrong_size, feedback))
            out.append(Misconception(code, "write_time", wrong_size / bw, feedback))

        if p.state == "full":
            both(
                "weights-only",
                p.n_params * 2 / GB,
                "That saves only the BF16 weights. A full training checkpoint also holds the "
                "FP32 master weights and both Adam moments: 14 bytes per parameter.",
            )
            both(
                "gradients-in-checkpoint",
                p.n_params * 16 / GB,
                "That counts 16 bytes per parameter, including gradients. Gradients are "
                "recomputed on the next step, so a checkpoint does not store them: 14 bytes.",
            )
        else:
            both(
                "wrong-bytes-per-param",
                p.n_params * 4 / GB,
                "That stores the weights in FP32 (4 bytes). The weights are saved in BF16, "
                "2 bytes per parameter.",
            )
            both(
                "full-state-not-weights",
                p.n_params * 14 / GB,
                "That is the full training state. The question saves only the weights.",
            )
        out.append(
            Misconception(
                "gb-vs-gib",
                "size",
                size * GB / 2**30,
                "That is the size in GiB. The question asks for GB (10^9 bytes).",
            )
        )
        out.append(
            Misconception(
                "bits-vs-bytes",
                "write_time",
                size * 8 / bw,
                f"That reads {sig15(bw)} GB/s as gigabits per second. The storage bandwidth is in "
                "bytes per second.",
            )
        )
        return out


# ---------------------------------------------------------------------------------------
# failure-goodput


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
