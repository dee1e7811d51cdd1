"""gpu-memory-errors: read `nvidia-smi -q -d ECC,ROW_REMAPPER` for the eight GPUs of an
HGX A100 or H100 node, find the GPU with memory errors since the node last booted, and
choose the first action.

Realism: A100 SXM4 80GB and H100 80GB HBM3 (the parts that remap HBM rows; their
Bank Remap Availability Histograms hold 640 and 2,560 banks), dated in a fleet year of the
era table with that year's driver (R550 in 2024, R570 in 2025) and the ECC section those
branches print (public `nvidia-smi -q -d ECC` captures of 535.161.08 and 555.42.02:
SRAM Uncorrectable split into Parity and SEC-DED, SRAM Threshold Exceeded and the
Aggregate Uncorrectable SRAM Sources under Aggregate; "ECC Mode", where R525 printed "Ecc
Mode"), the Remapped Rows block as spec/tool-output/nvidia-smi-q shows it, and a
`--query-gpu=index,pci.bus_id` listing so the bus IDs map to indexes. Volatile counters
restart at each driver load, aggregate ones last the GPU's lifetime.

The histogram agrees with the remap counts. Every bank holds eight reserved rows (NVIDIA
GPU Memory Error Management, RMA policy: a remap attempt on a bank that already has eight
uncorrectable-error rows remapped sets the failure flag); a bank with one row used is at
High (as the captured A100 with one remapped row shows) and one with none left at None
(NVML: "None means that there are no reserved rows available"). Each remap here lands in
a bank of its own, except the failed GPU's exhausted bank, which holds eight. The planted
state, if any, is one of:

- pending: 1-2 new DRAM uncorrectable errors, a row remapped for them with Pending: Yes.
  The spare row is only used after a GPU reset, and NVIDIA's guidance (the shared
  `_row_remap` module, which xid-triage's Xid 63 follows too) is to keep the GPU in
  service and reset it at the next maintenance window: reset at window.
- failure: new uncorrectable errors and Remapping Failure Occurred: Yes: a bank that had
  already used its eight rows (None: 1) got another error. A reset cannot repair that:
  drain and replace the GPU (RMA).
- correctable: 2-40 new DRAM correctable errors and no remap: ECC fixed each one; keep
  running and watch the count.
- none: no new errors anywhere.

Every variant also has two healthy GPUs with history only: one with aggregate
correctable errors and no new ones (named aggregate-is-history when picked), and one
whose past uncorrectable error was remapped at an earlier reset, Pending: No
(applied-remap-is-healthy). Action slips: with a remap pending, never resetting
(pending-needs-reset), restarting the job (restart-is-not-reset), draining and resetting
now (pending-remap-is-not-urgent) or replacing a GPU whose remap worked
(remap-is-not-failure); resetting or restarting after a remapping failure
(failure-needs-replacement), any drastic step for correctable errors
(correctable-is-not-fatal), and resetting or replacing a GPU when nothing is new.
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field, model_validator

from problems.engine.registry import register
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates import _row_remap
from problems.templates._common import choice_part
from problems.templates._era import fleet_driver, fleet_moment
from problems.templates.gpu_health._family import (
    GPU_CHOICES,
    GPUS,
    NODES,
    SAMPLE_MAX,
    gpu_label,
    gpu_or_none,
    others,
    readings_rng,
)

State = Literal["pending", "failure", "correctable", "none"]
STATES = ("pending", "failure", "correctable", "none")
KEEP, RESTART, RESET, REPLACE = "keep running", "restart job", "reset GPU", "replace GPU"
RESET_LATER = _row_remap.ACTION_WORDS[1]  # "reset at window"
ACTIONS = (KEEP, RESTART, RESET_LATER, RESET, REPLACE)
YEARS = (2024, 2025)  # fleet years whose -q layout public captures show (R550, R570)
ROWS_PER_BANK = 8
ACTION_FOR = {"pending": RESET_LATER, "failure": REPLACE, "correctable": KEEP, "none": KEEP}


class MemErrParams(Params):
    accelerator: Literal["a100-sxm-80gb", "h100-sxm"]
    state: State
    gpu: int | None = Field(ge=0, le=GPUS - 1)
    sample: int = Field(ge=0, le=SAMPLE_MAX)

    @model_validator(mode="after")
    def _gpu_matches_state(self) -> MemErrParams:
        gpu_or_none(self.state == "none", self.gpu)
        return self


def _clean(banks: int) -> dict:
    return {
        "vol": [0, 0, 0, 0],  # SRAM corr, SRAM uncorr, DRAM corr, DRAM uncorr
        "agg": [0, 0, 0, 0],
        "rr_corr": 0,
        "rr_unc": 0,
        "pending": False,
        "failure": False,
        "hist": [banks, 0, 0, 0, 0],  # Max, High, Partial, Low, None
    }


def readings(p: MemErrParams) -> tuple[list[dict], int, int]:
    """Per-GPU counters, the GPU with old correctable errors and the GPU with an old,
    applied remap (both healthy)."""
    banks = NODES[p.accelerator].banks
    rng = readings_rng("gpu-memory-errors", p.sample, p.accelerator, p.state, p.gpu)
    old_errors, old_remap = others(rng, {p.gpu} if p.gpu is not None else set(), 2)
    rows = [_clean(banks) for _ in range(GPUS)]
    r = rows[old_errors]
    r["agg"][2] = rng.randint(3, 60)
    r = rows[old_remap]
    r["agg"][2], r["agg"][3] = rng.randint(0, 4), 1
    r["rr_unc"], r["hist"] = 1, [banks - 1, 1, 0, 0, 0]
    if p.gpu is not None:
        r = rows[p.gpu]
        old = rng.randint(0, 6)
        if p.state == "correctable":
            n = rng.randint(2, 40)
            r["vol"][2], r["agg"][2] = n, n + old
        elif p.state == "pending":
            n = rng.randint(1, 2)
            c = rng.randint(0, 3)
            r["vol"][2:], r["agg"][2:] = [c, n], [c + old, n]
            r.update(rr_unc=1, pending=True, hist=[banks - 1, 1, 0, 0, 0])
        else:  # failure: one bank used all its rows, then took another error
            n, c = rng.randint(1, 3), rng.randint(0, 8)
            spread, rows_corr = rng.randint(0, 2), rng.randint(0, 2)
            rows_unc = ROWS_PER_BANK + spread
            r["vol"][2:], r["agg"][2:] = [c, n], [c + old, n + rows_unc]
            r.update(rr_corr=rows_corr, rr_unc=rows_unc, failure=True)
            high = spread + rows_corr  # one row each, in banks of their own
            r["hist"] = [banks - high - 1, high, 0, 0, 1]
    return rows, old_errors, old_remap


def _gpu_block(node, i: int, r: dict) -> list[str]:
    def field(indent: int, name: str, value: object) -> str:
        return f"{' ' * indent}{name:<{42 - indent}}: {value}"

    lines = [f"GPU {node.bus_id(i)}", "    ECC Mode"]
    lines += [field(8, "Current", "Enabled"), field(8, "Pending", "Enabled"), "    ECC Errors"]
    for title, (sram_c, sram_u, dram_c, dram_u) in (
        ("Volatile", r["vol"]),
        ("Aggregate", r["agg"]),
    ):
        lines += [
            f"        {title}",
            field(12, "SRAM Correctable", sram_c),
            field(12, "SRAM Uncorrectable Parity", sram_u),
            field(12, "SRAM Uncorrectable SEC-DED", 0),
            field(12, "DRAM Correctable", dram_c),
            field(12, "DRAM Uncorrectable", dram_u),
        ]
    lines.append(field(12, "SRAM Threshold Exceeded", "No"))
    lines.append("        Aggregate Uncorrectable SRAM Sources")
    sources = ("SRAM L2", "SRAM SM", "SRAM Microcontroller", "SRAM PCIE", "SRAM Other")
    lines += [field(12, name, 0) for name in sources]
    lines += [
        "    Remapped Rows",
        field(8, "Correctable Error", r["rr_corr"]),
        field(8, "Uncorrectable Error", r["rr_unc"]),
        field(8, "Pending", "Yes" if r["pending"] else "No"),
        field(8, "Remapping Failure Occurred", "Yes" if r["failure"] else "No"),
        "        Bank Remap Availability Histogram",
    ]
    levels = ("Max", "High", "Partial", "Low", "None")
    lines += [field(12, n, f"{c} bank(s)") for n, c in zip(levels, r["hist"], strict=True)]
    return lines


def smi_output(p: MemErrParams, rows: list[dict]) -> str:
    node = NODES[p.accelerator]
    era = readings_rng("gpu-memory-errors", p.sample, "era", p.accelerator)
    year = era.choice(YEARS)
    driver = fleet_driver(p.accelerator, year)
    when = fleet_moment(era, year)
    stamp = f"{when:%a %b} {when.day:2d} {when:%H:%M:%S %Y}"
    lines = ["$ nvidia-smi --query-gpu=index,pci.bus_id --format=csv", "index, pci.bus_id"]
    lines += [f"{i}, {node.bus_id(i)}" for i in range(GPUS)]
    lines += [
        "",
        "$ nvidia-smi -q -d ECC,ROW_REMAPPER",
        "",
        "==============NVSMI LOG==============",
        "",
        f"{'Timestamp':<42}: {stamp}",
        f"{'Driver Version':<42}: {driver.version}",
        f"{'CUDA Version':<42}: {driver.cuda}",
        "",
        f"{'Attached GPUs':<42}: {GPUS}",
    ]
    for i, r in enumerate(rows):
        lines += _gpu_block(node, i, r)
        lines.append("")
    return "\n".join(lines).rstrip()


@register
class GpuMemoryErrors(Template):
    slug = "gpu-memory-errors"
    title = "ECC errors and row remapping: which GPU, and what to do"
    family = "gpu_health"
    lessons = (
        "troubleshooting-gpu-clusters",
        "gpu-monitoring-observability",
        "bring-up-validation",
    )
    skills = ("incident-triage", "gpu-telemetry", "cluster-acceptance", "ecc-row-remapping")
    difficulty = 3
    version = 2  # issue 34: a pending remap is reset at the next window, as NVIDIA advises
    Params = MemErrParams

    def generate(self, rng: random.Random) -> MemErrParams:
        state = rng.choice(STATES)
        return MemErrParams(
            accelerator=rng.choice(("a100-sxm-80gb", "h100-sxm")),
            state=state,
            gpu=None if state == "none" else rng.randrange(GPUS),
            sample=rng.randrange(SAMPLE_MAX),
        )

    def solve(self, p: MemErrParams) -> dict[str, Part]:
        return {
            "gpu": choice_part("gpu", gpu_label(p.gpu), GPU_CHOICES, "GPU with new memory errors"),
            "action": Part(
                "action",
                ACTION_FOR[p.state],
                kind=Kind.CHOICE,
                tolerance=Exact(),
                choices=ACTIONS,
                label="First action",
            ),
        }

    def statement(self, p: MemErrParams) -> str:
        node = NODES[p.accelerator]
        rows, _, _ = readings(p)
        return (
            f"A training node with eight {node.smi_name} GPUs rebooted two days ago for a "
            "kernel update. Its training job is running (the scheduler restarts it from "
            "its last checkpoint whenever it crashes). The node's nightly health check "
            "printed:\n\n"
            f"```text\n{smi_output(p, rows)}\n```\n\n"
            "1. Which GPU, if any, has had memory errors since the node last booted? Answer "
            "GPU 0 to GPU 7, or none.\n"
            "2. What is the first action for the node? Answer **keep running** (leave it in "
            "service and watch the counters), **restart job** (restart the training job "
            "from its last checkpoint on the same GPUs), **reset at window** (leave it in "
            "service and reset that GPU at the next maintenance window, once its current "
            "work ends), **reset GPU** (drain the node now, reset that GPU, check it and "
            "return it to service) or **replace GPU** (drain the node and take it out of "
            "service for a GPU replacement)."
        )

    def solution(self, p: MemErrParams) -> str:
        rows, old_errors, old_remap = readings(p)
        text = (
            "Two kinds of counter sit side by side. The **Volatile** ECC counts restart at "
            "every driver load, so after the reboot they hold only new errors; the "
            "**Aggregate** counts last the GPU's lifetime. Row remapping replaces a bad HBM "
            "row with a spare one in the same bank: **Pending: Yes** means a row is marked "
            "but the swap only takes effect at the next GPU reset (until then the driver "
            "keeps the bad page out of use); **Remapping Failure Occurred: Yes** means a "
            "bank had no spare left, which a reset cannot fix.\n\n"
        )
        if p.gpu is not None:
            r, g = rows[p.gpu], p.gpu
            vol = r["vol"]
            if p.state == "pending":
                text += (
                    f"GPU {g} has {vol[3]} volatile DRAM uncorrectable error(s) and its "
                    "Remapped Rows show an uncorrectable-error row with **Pending: Yes**. "
                    f"The remap was recorded but is not active yet. {_row_remap.WHY} That "
                    f"is **{RESET_LATER}** (`nvidia-smi -r -i {g}` once no process uses it, "
                    "or the node's next reboot), then confirm Pending is No. Restarting the "
                    "job does not reset the GPU, and replacement is for a remap that "
                    "failed.\n\n"
                )
            elif p.state == "failure":
                text += (
                    f"GPU {g} has {vol[3]} volatile DRAM uncorrectable error(s) and "
                    "**Remapping Failure Occurred: Yes**, with "
                    f"{r['hist'][4]} bank at None in the histogram: that bank had already "
                    f"remapped all {ROWS_PER_BANK} of its reserved rows (its share of the "
                    f"{r['rr_unc']} uncorrectable-error rows), so the new bad row cannot be "
                    "retired. That is NVIDIA's RMA "
                    "condition: drain the node and **replace GPU**. A reset or a restart "
                    "would put a GPU with known bad memory back into service.\n\n"
                )
            else:
                text += (
                    f"GPU {g} has {vol[2]} volatile DRAM correctable errors and no "
                    "uncorrectable ones, no pending remap and no failure: ECC corrected "
                    "every one, and the job's data is intact. **Keep running** and watch "
                    "the count; a fast-rising count or a pending remap would change that.\n\n"
                )
            text += f"So the answer is **GPU {g}**, **{ACTION_FOR[p.state]}**.\n\n"
        else:
            text += (
                "No GPU has a non-zero volatile count, none is pending and none has a "
                "remapping failure: answer **none**, **keep running**.\n\n"
            )
        a, b = rows[old_errors], rows[old_remap]
        text += (
            f"GPU {old_errors} has {a['agg'][2]} aggregate DRAM correctable errors but zero "
            "volatile ones: they all happened before the reboot, and none since. GPU "
            f"{old_remap} has one aggregate uncorrectable error and one remapped row with "
            "Pending: No and no failure: that error was repaired at an earlier reset, and "
            f"its histogram's {b['hist'][1]} bank at High just records the spare row in use. "
            "Both are healthy."
        )
        return text

    def misconceptions(self, p: MemErrParams) -> list[Misconception]:
        _, old_errors, old_remap = readings(p)
        out = [
            Misconception(
                "aggregate-is-history",
                "gpu",
                gpu_label(old_errors),
                f"GPU {old_errors}'s errors are all in the Aggregate counts, which span the "
                "GPU's life; its Volatile counts, which restart at each boot, are zero.",
            ),
            Misconception(
                "applied-remap-is-healthy",
                "gpu",
                gpu_label(old_remap),
                f"GPU {old_remap}'s remapped row has Pending: No and no failure: the repair "
                "was applied at an earlier reset, and no error is new since the boot.",
            ),
        ]

        def slip(code: str, value: str, feedback: str) -> None:
            out.append(Misconception(code, "action", value, feedback))

        if p.state == "pending":
            slip(_row_remap.NEVER_RESET[0], KEEP, _row_remap.NEVER_RESET[1])
            slip(
                "restart-is-not-reset",
                RESTART,
                "Restarting the job does not reset the GPU, so the remap stays pending.",
            )
            slip(_row_remap.RESET_NOW[0], RESET, _row_remap.RESET_NOW[1])
            slip(_row_remap.REPLACE[0], REPLACE, _row_remap.REPLACE[1])
        elif p.state == "failure":
            for value in (RESET_LATER, RESET, RESTART, KEEP):
                slip(
                    "failure-needs-replacement",
                    value,
                    "Remapping Failure Occurred: Yes means a bank ran out of spare rows; "
                    "no reset or restart fixes that. The GPU needs replacing.",
                )
        elif p.state == "correctable":
            for value in (RESTART, RESET_LATER, RESET, REPLACE):
                slip(
                    "correctable-is-not-fatal",
                    value,
                    "Correctable errors were fixed by ECC: no data was lost and nothing is "
                    "pending. Keep running and watch the count.",
                )
        else:
            for value in (RESET_LATER, RESET):
                slip(
                    "applied-remap-is-healthy",
                    value,
                    f"GPU {old_remap}'s remap is already applied (Pending: No); no reset is "
                    "needed.",
                )
            slip(
                "aggregate-is-history",
                REPLACE,
                "The only errors are in Aggregate counts from before the boot; nothing is new.",
            )
        return out
