"""What the two checkpoint-interval templates (Young's and Daly's) share: the
parameters, the job's MTBF, the generator, the statement and the slips common to
both rules, so the two questions differ only in the rule they ask for (and Young's
also asks for the job's MTBF).
"""

from __future__ import annotations

import math
import random
from typing import Literal

from pydantic import Field

from problems.engine.numbers import SECONDS
from problems.engine.solutions import formula
from problems.engine.template import Misconception, Params
from problems.templates._common import tex15

IntervalUnit = Literal["min", "h"]
OTHER_TIME = {"min": "h", "h": "min"}
UNIT_WORD = {"min": "minutes", "h": "hours", "s": "seconds"}

# Realistic inputs: cluster sizes in nodes, per-node MTBF in hours (Llama 3's 16,384-GPU run
# saw one unexpected interruption every ~3.1 h across 2,048 nodes, about 6,300 h per node),
# and checkpoint write times in seconds.
NODE_COUNTS = (8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
NODE_MTBF_H = (2000, 5000, 6300, 8000, 10000, 20000, 50000)
CHECKPOINT_S = (10, 20, 30, 45, 60, 90, 120, 180, 300, 600)


def young_s(delta_s: float, mtbf_s: float) -> float:
    return math.sqrt(2 * delta_s * mtbf_s)


class IntervalParams(Params):
    checkpoint_s: float = Field(gt=0, le=1e7)
    node_mtbf_h: float = Field(gt=0, le=1e8)
    n_nodes: int = Field(ge=1, le=10_000_000)
    unit: IntervalUnit


SYSTEM_MTBF = formula("M", lambda s: s.m / s.n, m=r"M_{\mathrm{node}}", n="n")


def generate_interval(rng: random.Random) -> IntervalParams:
    while True:
        n = rng.choice(NODE_COUNTS)
        node_mtbf = float(rng.choice(NODE_MTBF_H))
        delta = float(rng.choice(CHECKPOINT_S))
        mtbf_s = node_mtbf * 3600 / n
        # Keep to the regime the formulas are meant for: a checkpoint much shorter than M.
        if delta <= 0.25 * mtbf_s:
            break
    tau_s = young_s(delta, mtbf_s)
    # Prefer the unit that gives a readable number, but not always.
    natural = "h" if tau_s >= 2 * 3600 else "min"
    unit = natural if rng.random() < 0.75 else OTHER_TIME[natural]
    return IntervalParams(checkpoint_s=delta, node_mtbf_h=node_mtbf, n_nodes=n, unit=unit)


def interval_statement(p: IntervalParams, rule: str) -> str:
    nodes = "one node" if p.n_nodes == 1 else f"$n = {p.n_nodes}$ nodes"
    return (
        f"A training job runs on {nodes}. Each node fails on its own, at random, with a mean "
        f"time between failures of $M_{{\\mathrm{{node}}}} = {tex15(p.node_mtbf_h)}$ hours, and "
        "any node failure stops the whole job. Writing one checkpoint takes "
        f"$\\delta = {tex15(p.checkpoint_s)}$ seconds.\n\n"
        f"Using {rule}, how often should the job checkpoint? Give the interval in "
        f"{UNIT_WORD[p.unit]}."
    )


def interval_misconceptions(
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
    if rule is young_s:
        out.append(
            Misconception(
                "young-missing-factor-2",
                part,
                math.sqrt(p.checkpoint_s * mtbf_s) / unit,
                "That drops the 2 under the square root: Young's interval is sqrt(2 delta M).",
            )
        )
    return out
