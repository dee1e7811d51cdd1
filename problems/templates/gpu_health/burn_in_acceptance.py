"""burn-in-acceptance: apply written acceptance criteria to a burn-in summary of 12 or 16
HGX nodes: derive the HPL threshold from the fleet's median, then count the nodes that
pass every criterion.

Realism: the nodes are HGX A100, H100, H200 or B200 (hardware_db's FP64 tensor peak per
GPU; eight per node). Single-node HPL reaches 64-74% of the node's FP64 peak (an 8x H100
node measured 365.4 TFLOP/s, 68% of 8 x 67 TFLOP/s: AI @ Georgia Tech with Voltage Park,
github.com/aigatech/vpbenchmarking, 2026), healthy nodes within 1.2% of one another; a
slow node runs at 80% to (threshold - 2)% of the healthy level. `dcgmi diag -r 3` gives
Pass or Fail per node, HPL's residual check PASSED or FAILED, and the per-rail
`ib_write_bw` column the worst of the node's eight rails: 96-98.5% of the line rate
when healthy (HDR 200 Gb/s on A100 nodes, NDR 400 Gb/s on the others), and half the
rate (a link trained down) or 55-85% of it on a bad rail. Every failing node fails one
criterion, so each count is a property of one reading.

The criteria: dcgmi diag passes, HPL's residual check passes, HPL at least `keep_pct`%
of the fleet median (all nodes, median of an even count is the mean of the middle two),
and every rail at least 90% of the line rate.

Misconceptions, on the threshold: the fleet mean in place of the median (pulled down by
the slow nodes) and the datasheet peak of eight GPUs (the best node is never clear of the
median: healthy nodes sit within 1.2% of one another); on the count: HPL's
PASSED read as a performance pass (slow nodes accepted), speed alone (diagnostic,
residual and rail failures accepted), and the single-node tests alone (rail failures
accepted). A slip is named only when it lands clear of the answer and the other slips.
"""

from __future__ import annotations

import statistics

from pydantic import Field, model_validator

from problems.engine.registry import register
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import fenced, peak_tflops_of, separated
from problems.templates.gpu_health._family import GPUS, NODES, SAMPLE_MAX, Hgx, readings_rng

RAIL_FLOOR = 0.9  # every rail at least 90% of its line rate


class AcceptanceParams(Params):
    accelerator: Hgx
    nodes: int = Field(ge=12, le=16)
    keep_pct: int = Field(ge=90, le=98)
    slow: int = Field(ge=0, le=3)
    diag_fail: int = Field(ge=0, le=1)
    residual_fail: int = Field(ge=0, le=1)
    rail_fail: int = Field(ge=0, le=2)
    sample: int = Field(ge=0, le=SAMPLE_MAX)

    @model_validator(mode="after")
    def _most_nodes_healthy(self) -> AcceptanceParams:
        if self.nodes not in (12, 16):
            raise ValueError("a burn-in batch here is 12 or 16 nodes")
        if self.keep_pct not in (95, 97):
            raise ValueError("the criteria keep 95% or 97% of the median")
        return self


def line_rate_gbps(p: AcceptanceParams) -> int:
    return 200 if p.accelerator == "a100-sxm-80gb" else 400


def node_peak_tflops(p: AcceptanceParams) -> float:
    return GPUS * peak_tflops_of(NODES[p.accelerator].acc, "fp64")


def results(p: AcceptanceParams) -> list[dict]:
    """One row per node; `fails` says which criterion it fails, if any."""
    rng = readings_rng("burn-in-acceptance", p.sample, p.accelerator, p.nodes, p.keep_pct)
    level = node_peak_tflops(p) * rng.uniform(0.64, 0.74)
    roles = ["slow"] * p.slow + ["diag"] * p.diag_fail + ["residual"] * p.residual_fail
    roles += ["rail"] * p.rail_fail
    roles += [""] * (p.nodes - len(roles))
    rng.shuffle(roles)
    line = line_rate_gbps(p)
    rows = []
    for i, role in enumerate(roles):
        hpl = level * rng.uniform(0.988, 1.012)
        if role == "slow":
            hpl = level * 0.988 * rng.uniform(0.80, p.keep_pct / 100 - 0.02)
        rail_bw = round(line * rng.uniform(0.96, 0.985))
        if role == "rail":
            rail_bw = line // 2 if rng.random() < 0.5 else round(line * rng.uniform(0.55, 0.85))
        rows.append({
            "node": f"gpu-{i + 1:03d}", "fails": role, "hpl": round(hpl, 1),
            "diag": "Fail" if role == "diag" else "Pass",
            "residual": "FAILED" if role == "residual" else "PASSED",
            "rail": f"mlx5_{rng.randrange(8)}", "rail_bw": rail_bw,
        })  # fmt: skip
    return rows


def median_hpl(rows: list[dict]) -> float:
    return statistics.median(r["hpl"] for r in rows)


def threshold(p: AcceptanceParams, rows: list[dict]) -> float:
    return p.keep_pct / 100 * median_hpl(rows)


def summary_text(p: AcceptanceParams, rows: list[dict]) -> str:
    lines = ["node     dcgmi diag -r 3  HPL residual  HPL TFLOP/s  worst rail (ib_write_bw)"]
    for r in rows:
        lines.append(
            f"{r['node']}  {r['diag']:<15}  {r['residual']:<12}  {r['hpl']:>11.1f}  "
            f"{r['rail']}  {r['rail_bw']} Gb/s"
        )
    return "\n".join(lines)


@register
class BurnInAcceptance(Template):
    slug = "burn-in-acceptance"
    title = "Accept nodes after burn-in: the HPL threshold and the count that passes"
    family = "gpu_health"
    lessons = ("bring-up-validation",)
    skills = ("cluster-acceptance", "dcgm")
    difficulty = 3
    version = 1
    Params = AcceptanceParams

    def generate(self, rng) -> AcceptanceParams:
        return AcceptanceParams(
            accelerator=rng.choice(sorted(NODES)),
            nodes=rng.choice((12, 16)),
            keep_pct=rng.choice((95, 97)),
            slow=rng.choice((0, 1, 1, 2, 2, 3)),
            diag_fail=rng.choice((0, 1)),
            residual_fail=rng.choice((0, 1)),
            rail_fail=rng.choice((0, 1, 1, 2)),
            sample=rng.randrange(SAMPLE_MAX),
        )

    def solve(self, p: AcceptanceParams) -> dict[str, Part]:
        rows = results(p)
        accepted = sum(1 for r in rows if not r["fails"])
        return {
            "threshold": Part(
                "threshold", threshold(p, rows), "TFLOP/s", label="HPL acceptance threshold"
            ),  # fmt: skip
            "accepted": Part(
                "accepted",
                accepted,
                "",
                kind=Kind.INTEGER,
                tolerance=Exact(),
                label="Nodes accepted",
            ),  # fmt: skip
        }

    def statement(self, p: AcceptanceParams) -> str:
        node = NODES[p.accelerator]
        rows = results(p)
        line = line_rate_gbps(p)
        return (
            f"A batch of {p.nodes} HGX nodes, each with eight {node.smi_name} GPUs and eight "
            f"{line} Gb/s InfiniBand rails, has finished burn-in. The harness's summary, one "
            "line per node: the `dcgmi diag -r 3` verdict, HPL's residual check and speed "
            "(single-node HPL, FP64), and the slowest of the node's eight rails in per-rail "
            "`ib_write_bw` tests:\n\n"
            + fenced(summary_text(p, rows))
            + "\n\nThe written acceptance criteria: a node is accepted when (1) `dcgmi diag "
            "-r 3` passes, (2) HPL's residual check passes, (3) its HPL speed is at least "
            f"{p.keep_pct}% of the median HPL speed of all {p.nodes} nodes in the batch, and "
            f"(4) every rail reaches at least {RAIL_FLOOR:.0%} of the {line} Gb/s line rate."
            "\n\n1. What is the HPL threshold of criterion 3, in TFLOP/s?\n"
            "2. How many nodes are accepted?"
        )

    def solution(self, p: AcceptanceParams) -> str:
        rows = results(p)
        speeds = sorted(r["hpl"] for r in rows)
        mid = p.nodes // 2
        med, thr = median_hpl(rows), threshold(p, rows)
        line = line_rate_gbps(p)
        text = (
            "The threshold comes from the fleet, not the datasheet: a batch of identical "
            "nodes should run alike, and a node well under its peers has a fault even when "
            f"its result is correct. Sorted, the {p.nodes} HPL speeds have "
            f"{speeds[mid - 1]:.1f} and {speeds[mid]:.1f} TFLOP/s in the middle, so the "
            f"median is {med:.2f} TFLOP/s (the slow nodes cannot pull a median down the "
            f"way they pull a mean) and the threshold is {p.keep_pct}% of it: "
            f"$T = {p.keep_pct / 100} \\times {med:.2f} = {thr:.1f}$ TFLOP/s.\n\n"
        )
        fails = {
            "slow": f"HPL under {thr:.1f} TFLOP/s (criterion 3)",
            "diag": "`dcgmi diag -r 3` Fail (criterion 1)",
            "residual": "HPL residual FAILED, a wrong answer at full speed (criterion 2)",
            "rail": f"a rail under {RAIL_FLOOR * line:.0f} Gb/s (criterion 4)",
        }
        out = [f"{r['node']}: {fails[r['fails']]}" for r in rows if r["fails"]]
        accepted = sum(1 for r in rows if not r["fails"])
        if out:
            text += "Rejected: " + "; ".join(out) + ". "
        else:
            text += "No node fails a criterion. "
        text += f"Accepted: **{accepted}** of {p.nodes} nodes."
        return text

    def misconceptions(self, p: AcceptanceParams) -> list[Misconception]:
        rows = results(p)
        thr = threshold(p, rows)
        keep = p.keep_pct / 100
        out: list[Misconception] = []
        candidates = [
            ("threshold-from-mean", keep * statistics.fmean(r["hpl"] for r in rows),
             "The criterion uses the median: the slow nodes pull the mean down, and with it "
             "the bar they are measured against."),
            ("threshold-from-peak", keep * node_peak_tflops(p),
             "HPL never reaches the datasheet peak (about 64-74% on one node); the "
             "threshold is a share of what these nodes measured."),
        ]  # fmt: skip
        taken = [thr]
        for code, value, feedback in candidates:
            if separated([*taken, value]):
                out.append(Misconception(code, "threshold", value, feedback))
                taken.append(value)
        n_ok = sum(1 for r in rows if not r["fails"])
        count_of = {
            "hpl-passed-as-fast": (n_ok + p.slow, "PASSED is HPL's residual check; the "
                                   "speed criterion still rejects the slow nodes."),
            "speed-only-acceptance": (p.nodes - p.slow, "Speed is one criterion of four: a "
                                      "failed diagnostic, a wrong HPL answer or a slow rail "
                                      "each rejects a node."),
            "rail-checks-ignored": (n_ok + p.rail_fail, "Single-node tests do not exercise "
                                    "the rails; criterion 4 rejects a node with a slow one."),
        }  # fmt: skip
        counts = [n_ok]
        for code, (value, feedback) in count_of.items():
            if value not in counts:
                out.append(Misconception(code, "accepted", value, feedback))
                counts.append(value)
        return out
