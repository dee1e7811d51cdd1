"""nvidia-smi-triage: find the GPU that is not pulling its weight in an 8-GPU HGX node
from the default `nvidia-smi` table and a CSV query of clocks, power and clock-event
reasons, and say why.

Realism: the node is an HGX A100, H100, H200 or B200 with the GPUs' product names,
memory (MiB, as the driver reports it) and power limits from hardware_db, their maximum SM
clocks (1410, 1980, 1980 and 1965 MHz), DGX-style PCI bus IDs, and the date line, driver
and layout of a fleet year from the era table (R550 in 2024, R570 in 2025, R580 in 2026;
B200 from 2025). It runs eight independent single-GPU runs of one sweep, so healthy GPUs
look alike: 100% GPU-Util, 80-91% of the power limit, full SM clock, 55-72 C; the
Processes box lists the eight runs, one compute process per GPU holding nearly all of
its memory (the stalled one too: a stalled run has not exited). Every variant also has one
healthy GPU drawing 97-99.5% of its limit with SW Power Cap (0x4) active and its clock a
few 15 MHz steps down (normal at full load), and one healthy GPU at 77-81 C with no
reason active. The planted fault, if any, is one of:

- stalled: a kernel is resident (100% GPU-Util) but the GPU does almost no work: 15-24%
  of its power limit, 33-42 C, full clock and no reason active, its process still listed
  with its memory: a kernel that never completes (a deadlock or a spin-wait on a flag
  that is never set). The runs are single-GPU, so no collective is involved. GPU-Util is
  the share of time some kernel was running, not how busy the SMs are.
- thermal: 86-89 C, SW Thermal Slowdown (0x20) or HW Slowdown with HW and SW thermal
  (0x68) active, the SM clock at 62-80% of its maximum and power well under the limit.
- power-cap: power.limit set 55-75% of the default (25 W steps), drawing 97-99.5% of
  it with SW Power Cap active and the clock at 78-88% of its maximum.

Misconceptions, on the GPU part: picking the warm healthy GPU (hottest-not-throttled,
except in thermal variants), picking the GPU whose SW Power Cap is active at the full
limit (power-cap-at-full-limit), and answering none for a stalled GPU (trusted-gpu-util).
On the cause part: none or power-cap for a stalled GPU (trusted-gpu-util,
low-draw-as-cap), power-cap for a thermally throttled one (low-draw-as-cap), thermal for
a capped one (slow-clock-as-thermal), and thermal or power-cap when nothing is wrong
(hottest-not-throttled, power-cap-at-full-limit).
"""

from __future__ import annotations

import random
from typing import Literal

from pydantic import Field, model_validator

from problems.engine.registry import register
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import choice_part
from problems.templates.gpu_health._family import (
    GPU_CHOICES,
    GPUS,
    NODES,
    NONE,
    SAMPLE_MAX,
    Hgx,
    gpu_label,
    gpu_or_none,
    node_smi,
    others,
    readings_rng,
)

Fault = Literal["stalled", "thermal", "power-cap", "none"]
CAUSES = ("stalled", "thermal", "power-cap", "none")
SW_POWER_CAP, HW_SLOWDOWN, SW_THERMAL, HW_THERMAL = 0x4, 0x8, 0x20, 0x40


class TriageParams(Params):
    accelerator: Hgx
    fault: Fault
    gpu: int | None = Field(ge=0, le=GPUS - 1)
    sample: int = Field(ge=0, le=SAMPLE_MAX)

    @model_validator(mode="after")
    def _gpu_matches_fault(self) -> TriageParams:
        gpu_or_none(self.fault == "none", self.gpu)
        return self


def readings(p: TriageParams) -> tuple[list[dict], int, int]:
    """Per-GPU readings, the at-the-limit GPU and the warm GPU (both healthy)."""
    node = NODES[p.accelerator]
    rng = readings_rng("nvidia-smi-triage", p.sample, p.accelerator, p.fault, p.gpu)
    cap, top = node.cap_w, node.max_sm_mhz
    base_mem = rng.uniform(0.62, 0.93) * node.memory_mib
    at_limit, warm = others(rng, {p.gpu} if p.gpu is not None else set(), 2)
    rows = []
    for i in range(GPUS):
        r = {
            "util": 100,
            "temp": rng.randint(55, 72),
            "draw": rng.uniform(0.80, 0.91) * cap,
            "limit": cap,
            "clock": top,
            "reasons": 0,
            "mem": round(base_mem + rng.randint(-300, 300)),
        }
        if i == at_limit:
            r.update(draw=rng.uniform(0.97, 0.995) * cap, reasons=SW_POWER_CAP)
            r["clock"] = top - 15 * rng.randint(2, 6)
        elif i == warm:
            r["temp"] = rng.randint(77, 81)
        elif i == p.gpu and p.fault == "stalled":
            r.update(draw=rng.uniform(0.15, 0.24) * cap, temp=rng.randint(33, 42))
        elif i == p.gpu and p.fault == "thermal":
            r.update(draw=rng.uniform(0.55, 0.72) * cap, temp=rng.randint(86, 89))
            r["reasons"] = rng.choice((SW_THERMAL, HW_SLOWDOWN | SW_THERMAL | HW_THERMAL))
            r["clock"] = 15 * round(top * rng.uniform(0.62, 0.80) / 15)
        elif i == p.gpu and p.fault == "power-cap":
            limit = 25 * round(cap * rng.uniform(0.55, 0.75) / 25)
            r.update(limit=limit, draw=rng.uniform(0.97, 0.995) * limit, reasons=SW_POWER_CAP)
            r.update(temp=rng.randint(50, 62), clock=15 * round(top * rng.uniform(0.78, 0.88) / 15))
        r["draw"] = round(r["draw"], 2)
        rows.append(r)
    return rows, at_limit, warm


PROCESS_NAMES = ("python", "python3", "/usr/bin/python3", "/opt/conda/bin/python3")


def smi_default(p: TriageParams, rows: list[dict]) -> str:
    """The default table, from a stream of its own so the readings stay as they were."""
    rng = readings_rng("nvidia-smi-triage", p.sample, "smi", p.accelerator, p.fault, p.gpu)
    return node_smi(NODES[p.accelerator], rows, rng, rng.choice(PROCESS_NAMES))


QUERY = (
    "index,clocks.sm,clocks.max.sm,temperature.gpu,power.draw,power.limit,"
    "clocks_event_reasons.active"
)


def smi_csv(p: TriageParams, rows: list[dict]) -> str:
    top = NODES[p.accelerator].max_sm_mhz
    lines = [
        f"$ nvidia-smi --query-gpu={QUERY} --format=csv",
        "index, clocks.current.sm [MHz], clocks.max.sm [MHz], temperature.gpu, power.draw [W], "
        "power.limit [W], clocks_event_reasons.active",
    ]
    for i, r in enumerate(rows):
        lines.append(
            f"{i}, {r['clock']} MHz, {top} MHz, {r['temp']}, {r['draw']:.2f} W, "
            f"{r['limit']:.2f} W, 0x{r['reasons']:016X}"
        )
    return "\n".join(lines)


@register
class NvidiaSmiTriage(Template):
    slug = "nvidia-smi-triage"
    title = "Triage a node from nvidia-smi: stalled, throttled or capped?"
    family = "gpu_health"
    lessons = (
        "gpu-monitoring-observability",
        "from-symptoms-to-device-evidence",
        "troubleshooting-gpu-clusters",
    )
    skills = ("gpu-telemetry", "incident-triage", "clock-event-reasons")
    difficulty = 3
    version = 1
    Params = TriageParams

    def generate(self, rng: random.Random) -> TriageParams:
        fault = rng.choice(CAUSES)
        return TriageParams(
            accelerator=rng.choice(sorted(NODES)),
            fault=fault,
            gpu=None if fault == "none" else rng.randrange(GPUS),
            sample=rng.randrange(SAMPLE_MAX),
        )

    def solve(self, p: TriageParams) -> dict[str, Part]:
        return {
            "gpu": choice_part("gpu", gpu_label(p.gpu), GPU_CHOICES, "GPU not doing its share"),
            "cause": Part(
                "cause",
                p.fault,
                kind=Kind.CHOICE,
                tolerance=Exact(),
                choices=CAUSES,
                label="Cause",
            ),
        }

    def statement(self, p: TriageParams) -> str:
        node = NODES[p.accelerator]
        rows, _, _ = readings(p)
        return (
            f"An HGX node with eight {node.smi_name} GPUs runs a hyperparameter sweep: eight "
            "independent single-GPU training runs of the same model and batch size, one per "
            "GPU, so healthy GPUs should look alike. You check the node:\n\n"
            f"```text\n{smi_default(p, rows)}\n\n{smi_csv(p, rows)}\n```\n\n"
            "`clocks_event_reasons.active` is a bit mask (NVML clock event reasons): "
            "0x1 GPU idle, 0x4 SW power cap, 0x8 HW slowdown, 0x20 SW thermal slowdown, "
            "0x40 HW thermal slowdown, 0x80 HW power brake slowdown.\n\n"
            "1. Which GPU, if any, is not doing its share of the work? Answer GPU 0 to "
            "GPU 7, or none.\n"
            "2. Why? Answer **stalled** (a kernel is resident but the GPU does almost no "
            "work), **thermal** (clocks held down by thermal slowdown), **power-cap** (held "
            "at a power limit below the others'), or **none**."
        )

    def solution(self, p: TriageParams) -> str:
        node = NODES[p.accelerator]
        rows, at_limit, warm = readings(p)
        cap = node.cap_w
        a, w = rows[at_limit], rows[warm]
        text = (
            "Healthy GPUs in this sweep show 100% GPU-Util, most of their "
            f"{cap} W limit, the full {node.max_sm_mhz} MHz SM clock and no clock event "
            "reason. Read every GPU against that baseline, and keep in mind what each "
            "column measures: GPU-Util is the share of the sample period in which at least "
            "one kernel was running, so a GPU whose kernel sits waiting still shows 100%. "
            "Power draw and SM clock say how hard it is working, and the event-reason mask "
            "says what, if anything, is holding the clock down.\n\n"
        )
        g = p.gpu
        if p.fault == "stalled":
            r = rows[g]
            text += (
                f"GPU {g} shows 100% GPU-Util like the others but draws only "
                f"{r['draw']:.0f} W of its {cap} W and runs at {r['temp']} C, with its clock "
                "at full speed and no event reason active: nothing is slowing it down, it "
                "simply has almost no work in flight. Its process is still listed with its "
                "memory, so the run has not crashed: a kernel is resident and not making "
                "progress (a deadlock, or a spin-wait on a flag that is never set; these "
                "runs are single-GPU, so there is no collective to wait on). Answer "
                f"**GPU {g}**, **stalled**. The power limit column still shows {cap} W, so "
                "this is not a cap.\n\n"
            )
        elif p.fault == "thermal":
            r = rows[g]
            text += (
                f"GPU {g} is at {r['temp']} C with its SM clock down to {r['clock']} MHz and "
                f"its mask at 0x{r['reasons']:X}, which includes 0x20 (SW thermal slowdown)"
                + (" and 0x40 (HW thermal slowdown)" if r["reasons"] & HW_THERMAL else "")
                + f". Its draw ({r['draw']:.0f} W) is low because the clock is low, and its "
                f"limit is the full {cap} W: answer **GPU {g}**, **thermal**. Check its "
                "airflow or coolant and the neighbouring slots.\n\n"
            )
        elif p.fault == "power-cap":
            r = rows[g]
            text += (
                f"GPU {g}'s power.limit is {r['limit']} W where every other GPU has {cap} W "
                f"(the table's Pwr:Usage/Cap column shows the same). It draws "
                f"{r['draw']:.0f} W, right at that lower limit, with SW power cap (0x4) "
                f"active and the clock at {r['clock']} MHz: answer **GPU {g}**, "
                "**power-cap**. Someone (or a policy) ran `nvidia-smi -pl` on it; restore "
                "the default limit.\n\n"
            )
        else:
            text += (
                "Every GPU is at 100% GPU-Util with most of its limit and no thermal bit "
                "set: answer **none**, **none**.\n\n"
            )
        text += (
            f"GPU {at_limit} shows SW power cap (0x4) with its clock {a['clock']} MHz, but "
            f"it draws {a['draw']:.0f} W against the same {cap} W limit as the others: "
            "that is a GPU using its full power budget, which is normal at full load. "
        )
        if p.fault != "thermal":
            text += (
                f"GPU {warm} is the warmest at {w['temp']} C, but its clock is at the maximum "
                "and no thermal reason is set: warm, not throttled."
            )
        return text

    def misconceptions(self, p: TriageParams) -> list[Misconception]:
        rows, at_limit, warm = readings(p)
        cap, g = NODES[p.accelerator].cap_w, p.gpu
        out: list[Misconception] = []

        def slip(code: str, part: str, value: str, feedback: str) -> None:
            out.append(Misconception(code, part, value, feedback))

        slip(
            "power-cap-at-full-limit",
            "gpu",
            gpu_label(at_limit),
            f"GPU {at_limit} has SW power cap active, but its limit is the default {cap} W: "
            "it is drawing its full budget, as a GPU at full load does. A capped GPU shows "
            "a power.limit below the others'.",
        )
        if p.fault != "thermal":
            slip(
                "hottest-not-throttled",
                "gpu",
                gpu_label(warm),
                f"GPU {warm} is the warmest, at {rows[warm]['temp']} C, but its SM clock is at "
                "the maximum and no thermal reason (0x20, 0x40) is set. Warm is not throttled.",
            )
        if p.fault == "stalled":
            for part in ("gpu", "cause"):
                slip(
                    "trusted-gpu-util",
                    part,
                    NONE,
                    "Every GPU shows 100% GPU-Util, but that only says a kernel was resident. "
                    f"GPU {g} draws a fraction of the others' power at full clock: it is "
                    "stalled.",
                )
        if p.fault in ("stalled", "thermal"):
            slip(
                "low-draw-as-cap",
                "cause",
                "power-cap",
                f"GPU {g} draws less, but its power.limit is the full {cap} W and SW power cap "
                "is not set. Low draw is the effect here, not a cap.",
            )
        if p.fault == "power-cap":
            slip(
                "slow-clock-as-thermal",
                "cause",
                "thermal",
                f"GPU {g}'s clock is down, but it runs at {rows[g]['temp']} C with no thermal "
                "bit set. Compare its power.limit with the others'.",
            )
        if p.fault == "none":
            slip(
                "hottest-not-throttled",
                "cause",
                "thermal",
                f"No GPU has a thermal reason set; GPU {warm} is merely the warmest.",
            )
            slip(
                "power-cap-at-full-limit",
                "cause",
                "power-cap",
                f"Every power.limit is the default {cap} W; SW power cap on GPU {at_limit} "
                "means it uses its full budget.",
            )
        return out
