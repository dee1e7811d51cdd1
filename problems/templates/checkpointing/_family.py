"""What the two checkpoint-interval templates (Young's and Daly's) share: the
parameters, the job's MTBF, the generator, the statement and the slips common to
both rules, so the two questions differ only in the rule they ask for (and Young's
also asks for the job's MTBF).

Realism constraints the interval generator enforces (both templates):

- Jobs are large: 128 to 4,096 nodes (1,024 to 32,768 GPUs at 8 a node), the scale at which
  checkpoint intervals are worth computing. Node counts that equal a factor the grader's
  detector knows (8, 24, 60, 1,000, 1,024) are left out, so a per-node slip is never
  read as a bits/bytes or unit-prefix slip.
- Node MTBF from published large-cluster studies: Llama 3's 16,384-H100 run saw 419
  unexpected interruptions in 54 days, one per ~3.1 h over 2,048 nodes, about 6,300 h
  per node (Dubey et al. 2024, formulas.md section 6). Drawn from 2,600 to 10,300 h,
  a band around that figure (other fleets report node failure rates of the same order;
  none of their figures is used here until it is checked against its paper).
- Checkpoint write times of 20 s to 15 min, what a blocking checkpoint of a large
  model's training state to a parallel file system takes (checkpoint-write-time).
- delta / M between 0.75% and 6%: Young's sqrt(2 delta M) then differs from Daly's
  interval by 4% to 15% (the ratio is 1 - (2/3)sqrt(x) + x/9 with x = delta/(2M)), so
  each rule's answer grades the other wrong; delta stays far below 2M, where both
  formulas are meant to be used.
- Every named slip of a part lands at least 2.5% away from the answer and from each
  other slip of that part, so the grader can name it.

Conventions examined: when the node failure rate is a short number of failures per
1,000 node-days and the MTBF in hours is not (about 40% of generated variants), the
statement gives the rate the way reliability studies report it and the learner converts
(M_node = 24,000 / r hours); forgetting the 24 hours a day is named (days-as-hours).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Literal

from pydantic import Field

from problems.engine.numbers import SECONDS, sig
from problems.engine.solutions import formula, step
from problems.engine.template import Misconception, Params
from problems.templates._common import tex15

IntervalUnit = Literal["min", "h"]
OTHER_TIME = {"min": "h", "h": "min"}
UNIT_WORD = {"min": "minutes", "h": "hours", "s": "seconds"}

NODE_COUNTS = (128, 192, 256, 384, 512, 768, 1536, 2048, 3072, 4096)
NODE_MTBF_H = (3000, 4000, 5000, 6300, 8000, 10000)
# Failures per 1,000 node-days whose MTBF in hours is not a short number (24,000 / r).
NODE_RATES = (2.34, 3.5, 4.5, 6.5, 7, 9)
CHECKPOINT_S = (20, 30, 45, 60, 90, 120, 180, 240, 300, 420, 600, 900)
DELTA_OVER_M = (0.0075, 0.06)
NODE_DAY_HOURS = 24_000  # hours in 1,000 node-days


def young_s(delta_s: float, mtbf_s: float) -> float:
    return math.sqrt(2 * delta_s * mtbf_s)


def short(x: float, figures: int) -> bool:
    """True when x is written exactly with at most `figures` significant figures."""
    return x != 0 and math.isclose(float(f"{x:.{figures}g}"), x, rel_tol=1e-12)


class IntervalParams(Params):
    checkpoint_s: float = Field(gt=0, le=1e7)
    node_mtbf_h: float = Field(gt=0, le=1e8)
    n_nodes: int = Field(ge=1, le=10_000_000)
    unit: IntervalUnit


SYSTEM_MTBF = formula("M", lambda s: s.m / s.n, m=r"M_{\mathrm{node}}", n="n")
NODE_MTBF_FROM_RATE = formula(r"M_{\mathrm{node}}", lambda s: s.h / s.r, h=r"24\,000", r="r")


def node_rate(p: IntervalParams) -> float | None:
    """Failures per 1,000 node-days when the statement gives the rate, else None."""
    rate = NODE_DAY_HOURS / p.node_mtbf_h
    if short(rate, 3) and not short(p.node_mtbf_h, 4):
        return float(f"{rate:.3g}")
    return None


def generate_interval(
    rng: random.Random, accept: Callable[[IntervalParams], bool] | None = None
) -> IntervalParams:
    """A realistic variant (see the module docstring); `accept` may refuse one."""
    for _ in range(10_000):
        n = rng.choice(NODE_COUNTS)
        if rng.random() < 0.4:
            node_mtbf = NODE_DAY_HOURS / rng.choice(NODE_RATES)
        else:
            node_mtbf = float(rng.choice(NODE_MTBF_H))
        delta = float(rng.choice(CHECKPOINT_S))
        mtbf_s = node_mtbf * 3600 / n
        if not DELTA_OVER_M[0] <= delta / mtbf_s <= DELTA_OVER_M[1]:
            continue
        tau_s = young_s(delta, mtbf_s)
        # Prefer the unit that gives a readable number, but not always.
        natural = "h" if tau_s >= 2 * 3600 else "min"
        unit = natural if rng.random() < 0.75 else OTHER_TIME[natural]
        p = IntervalParams(checkpoint_s=delta, node_mtbf_h=node_mtbf, n_nodes=n, unit=unit)
        if accept is None or accept(p):
            return p
    raise RuntimeError("no acceptable checkpoint-interval variant")  # pragma: no cover


def interval_statement(p: IntervalParams, rule: str) -> str:
    nodes = "one node" if p.n_nodes == 1 else f"$n = {p.n_nodes}$ nodes"
    rate = node_rate(p)
    if rate is None:
        failing = (
            "Each node fails on its own, at random, with a mean time between failures of "
            f"$M_{{\\mathrm{{node}}}} = {tex15(p.node_mtbf_h)}$ hours"
        )
    else:
        failing = (
            "Each node fails on its own, at random; the cluster's records show "
            f"$r = {tex15(rate)}$ failures per 1,000 node-days (one node running for one day "
            "is a node-day)"
        )
    return (
        f"A training job runs on {nodes}. {failing}, and any node failure stops the whole "
        f"job. Writing one checkpoint takes $\\delta = {tex15(p.checkpoint_s)}$ seconds.\n\n"
        f"Using {rule}, how often should the job checkpoint? Give the interval in "
        f"{UNIT_WORD[p.unit]}."
    )


def node_mtbf_text(p: IntervalParams) -> str:
    """The worked solution's first line when the statement gave a failure rate."""
    rate = node_rate(p)
    if rate is None:
        return ""
    return (
        f"{sig(rate, 15)} failures per 1,000 node-days is one failure per node every "
        f"$1000 / {tex15(rate)}$ node-days; at 24 hours a day that is $24\\,000 / r$ hours:\n\n"
        + step(NODE_MTBF_FROM_RATE, {"h": 24000, "r": rate}, p.node_mtbf_h, "h")
        + "\n\n"
    )


def interval_misconceptions(
    p: IntervalParams, part: str, rule, correct: float
) -> list[Misconception]:
    """Mistakes shared by Young's and Daly's interval; `rule(delta_s, mtbf_s)` in seconds."""
    unit = SECONDS[p.unit]
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
    if node_rate(p) is not None:
        out.append(
            Misconception(
                "days-as-hours",
                part,
                rule(p.checkpoint_s, p.node_mtbf_h * 3600 / 24 / p.n_nodes) / unit,
                "That reads 1,000 / r node-days as hours. A node-day is 24 node-hours: "
                "M_node = 24,000 / r hours.",
            )
        )
    if rule is young_s:
        mtbf_s = p.node_mtbf_h * 3600 / p.n_nodes
        out.append(
            Misconception(
                "young-missing-factor-2",
                part,
                math.sqrt(p.checkpoint_s * mtbf_s) / unit,
                "That drops the 2 under the square root: Young's interval is sqrt(2 delta M).",
            )
        )
    return out
