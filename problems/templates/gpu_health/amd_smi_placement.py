"""amd-smi-placement: from `amd-smi monitor -putm` and `amd-smi process --csv` on an
eight-GPU MI300X node, say how many GPUs a data-parallel job really works on and why.

The formats are AMD's (ROCm blog "Getting to Know Your GPU: A Deep Dive into AMD SMI",
17 Sep 2024, rocm.blogs.amd.com/software-tools-optimization/amd-smi-overview): the
monitor table's eight columns, right-aligned under their headers and two spaces apart;
the process CSV's columns `gpu,name,pid,gtt_mem,cpu_mem,vram_mem,mem_usage,gfx,enc` in
bytes (mem_usage is the sum of the three memories) laid out by `column -t -s,`, with
PyTorch's ranks named `pt_main_thread`. The idle readings are that capture's own idle
MI300X GPUs: 116-118 W, 37-42 C, 0-1% GFX at a 120-134 MHz clock, the memory at
900-913 MHz. An idle MI300X still draws about 117 W, so power is not work.

Busy GPUs run a fine-tuning step: 94-100% GFX, 520-745 W of the 750 W board power
(hardware_db), 1350-2100 MHz (the MI300X's 2100 MHz peak engine clock in the capture's
MAX_CLK), 58-82 C, memory at 1230 or 1300 MHz.

The layouts (the job was meant to put one rank on each of the eight GPUs):
- spread: eight ranks, one per GPU; all eight busy.
- one-device: the ranks never choose their own GPU (no `torch.cuda.set_device(local_rank)`
  and no LOCAL_RANK device), so 2, 4 or 8 of them share GPU 0, each with 12-22 GB; one
  GPU busy.
- too-few-ranks: the launcher started 1, 2 or 4 ranks (torchrun's `--nproc-per-node`
  defaults to 1), on GPUs 0 to k-1; k GPUs busy.
- extra-contexts: eight ranks, one per GPU, but ranks 1-7 also opened a context on GPU 0
  before choosing their device (0.4-0.6 GB each): all eight busy, GPU 0 loses memory.

Misconceptions: idle-draw-as-work (every GPU drawing over 100 W counted: 8 GPUs, and
as-intended), processes-as-gpus (one-device: counting the eight rank rows), rows-as-gpus
(extra-contexts: counting the fifteen process rows), extra-contexts-as-one-device (the
seven small rows on GPU 0 read as ranks crowded onto it).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from problems.engine.registry import register
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import choice_part, fenced
from problems.templates.gpu_health._family import GPUS, SAMPLE_MAX, readings_rng

Layout = Literal["spread", "one-device", "too-few-ranks", "extra-contexts"]
VERDICTS = ("as-intended", "one-device", "too-few-ranks", "extra-contexts")
VERDICT_OF = {"spread": "as-intended", "one-device": "one-device",
              "too-few-ranks": "too-few-ranks", "extra-contexts": "extra-contexts"}  # fmt: skip
RANKS_ALLOWED = {"spread": (8,), "extra-contexts": (8,), "one-device": (2, 4, 8),
                 "too-few-ranks": (1, 2, 4)}  # fmt: skip
BOARD_W = 750  # hardware_db mi300x tdp_watts
GB = 10**9


class PlacementParams(Params):
    layout: Layout
    ranks: int = Field(ge=1, le=GPUS)
    sample: int = Field(ge=0, le=SAMPLE_MAX)

    @model_validator(mode="after")
    def _ranks_fit_layout(self) -> PlacementParams:
        if self.ranks not in RANKS_ALLOWED[self.layout]:
            raise ValueError(f"a {self.layout} job runs {RANKS_ALLOWED[self.layout]} ranks")
        return self


def busy_gpus(p: PlacementParams) -> int:
    return {"one-device": 1, "too-few-ranks": p.ranks}.get(p.layout, GPUS)


def process_rows(p: PlacementParams) -> list[dict]:
    """Every (GPU, process) row `amd-smi process` lists, in GPU order."""
    rng = readings_rng("amd-smi-placement", p.sample, "process", p.layout, p.ranks)
    pids = sorted(rng.sample(range(150_000, 400_000), p.ranks))
    rng.shuffle(pids)  # ranks start in any order
    per_rank = (12, 22) if p.layout == "one-device" else (40, 150)
    rows = []
    for rank, pid in enumerate(pids):
        gpu = 0 if p.layout == "one-device" else rank
        rows.append(_row(rng, gpu, pid, rng.uniform(*per_rank) * GB))
    if p.layout == "extra-contexts":
        rows += [_row(rng, 0, pid, rng.uniform(0.4, 0.6) * GB) for pid in pids[1:]]
    return sorted(rows, key=lambda r: r["gpu"])  # stable: each GPU's own rank first


def _row(rng, gpu: int, pid: int, vram: float) -> dict:
    gtt, cpu = 2134016 + 32768 * rng.randint(0, 2), 211795968 - 32768 * rng.randint(0, 2)
    vram = 4096 * round(vram / 4096)
    return {"gpu": gpu, "pid": pid, "gtt": gtt, "cpu": cpu, "vram": vram}


def monitor_rows(p: PlacementParams) -> list[dict]:
    rng = readings_rng("amd-smi-placement", p.sample, "monitor", p.layout, p.ranks)
    busy = {r["gpu"] for r in process_rows(p) if r["vram"] > 5 * GB}
    rows = []
    for gpu in range(GPUS):
        if gpu in busy:
            rows.append({
                "power": rng.randint(520, 745), "temp": rng.randint(58, 82),
                "mem_temp": rng.randint(50, 70), "util": rng.randint(94, 100),
                "clock": rng.randint(1350, 2100), "mem_util": rng.randint(18, 55),
                "mem_clock": rng.choice((1230, 1300, 1300)),
            })  # fmt: skip
        else:
            rows.append({
                "power": rng.randint(116, 118), "temp": rng.randint(39, 42),
                "mem_temp": rng.randint(37, 41), "util": rng.choice((0, 0, 0, 1)),
                "clock": rng.choice((120, 120, 120, 134)), "mem_util": 0,
                "mem_clock": rng.choice((900, 900, 913)),
            })  # fmt: skip
    return rows


MONITOR_HEAD = ("GPU", "POWER", "GPU_TEMP", "MEM_TEMP", "GFX_UTIL", "GFX_CLOCK", "MEM_UTIL",
                "MEM_CLOCK")  # fmt: skip


def monitor_text(p: PlacementParams) -> str:
    lines = ["$ amd-smi monitor -putm", "  ".join(MONITOR_HEAD)]
    for gpu, r in enumerate(monitor_rows(p)):
        cells = (str(gpu), f"{r['power']} W", f"{r['temp']} °C", f"{r['mem_temp']} °C",
                 f"{r['util']} %", f"{r['clock']} MHz", f"{r['mem_util']} %",
                 f"{r['mem_clock']} MHz")  # fmt: skip
        lines.append("  ".join(c.rjust(len(h)) for c, h in zip(cells, MONITOR_HEAD, strict=True)))
    return "\n".join(lines)


PROCESS_HEAD = ("gpu", "name", "pid", "gtt_mem", "cpu_mem", "vram_mem", "mem_usage", "gfx", "enc")


def process_text(p: PlacementParams) -> str:
    table = [PROCESS_HEAD]
    for r in process_rows(p):
        total = r["gtt"] + r["cpu"] + r["vram"]
        table.append(tuple(map(str, (r["gpu"], "pt_main_thread", r["pid"], r["gtt"], r["cpu"],
                                     r["vram"], total, 0, 0))))  # fmt: skip
    widths = [max(len(row[i]) for row in table) for i in range(len(PROCESS_HEAD))]
    lines = ["$ sudo amd-smi process --csv | column -t -s,"]
    lines += [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in table
    ]
    return "\n".join(lines)


@register
class AmdSmiPlacement(Template):
    slug = "amd-smi-placement"
    title = "Where did the job land? Reading amd-smi on an MI300X node"
    family = "gpu_health"
    lessons = ("inside-a-gpu", "gpu-monitoring-observability")
    skills = ("gpu-telemetry", "rocm-hip", "incident-triage")
    difficulty = 2
    version = 1
    Params = PlacementParams

    def generate(self, rng) -> PlacementParams:
        layout = rng.choice(sorted(RANKS_ALLOWED))
        return PlacementParams(
            layout=layout,
            ranks=rng.choice(RANKS_ALLOWED[layout]),
            sample=rng.randrange(SAMPLE_MAX),
        )

    def solve(self, p: PlacementParams) -> dict[str, Part]:
        return {
            "gpus": Part(
                "gpus",
                busy_gpus(p),
                "",
                kind=Kind.INTEGER,
                tolerance=Exact(),
                label="GPUs doing the job's work",
            ),  # fmt: skip
            "verdict": choice_part("verdict", VERDICT_OF[p.layout], VERDICTS, "Verdict"),
        }

    def statement(self, p: PlacementParams) -> str:
        return (
            "A colleague's data-parallel fine-tuning job on a node with eight AMD Instinct "
            "MI300X GPUs (750 W each) was meant to run one rank on each GPU. Ten minutes "
            "in, you look at the node:\n\n"
            + fenced(f"{monitor_text(p)}\n\n{process_text(p)}")
            + "\n\nMemory in the process list is in bytes.\n\n"
            "1. The whole node is allocated to this job. How many of its eight GPUs are "
            "used for the job's work?\n"
            "2. What do you tell your colleague? Answer **as-intended** (one rank per GPU, "
            "all working), **one-device** (several ranks share one GPU: they never chose "
            "their own), **too-few-ranks** (the launcher started fewer ranks than GPUs), or "
            "**extra-contexts** (each rank has its own GPU, but the other ranks also hold "
            "memory on GPU 0)."
        )

    def solution(self, p: PlacementParams) -> str:
        mon, rows = monitor_rows(p), process_rows(p)
        busy = busy_gpus(p)
        idle_w = [r["power"] for r in mon if r["util"] <= 1]
        text = (
            "Read the two views together. In the monitor, a working MI300X shows high "
            "GFX_UTIL, a GFX clock well above 1 GHz and most of its 750 W; an idle one sits "
            "at 0-1% and a clock near 120 MHz but still draws over 100 W, so power alone "
            "does not say a GPU is working. The process list says which ranks hold memory "
            "on which GPU: count distinct GPUs, and look for a PID listed twice.\n\n"
        )
        if idle_w:
            text += f"Here {GPUS - busy} GPUs are idle: 0-1% GFX, {min(idle_w)}-{max(idle_w)} W. "
        if p.layout == "spread":
            text += (
                "Eight pt_main_thread processes, one per GPU, each with tens of GB of VRAM, "
                "and every GPU busy: answer **8**, **as-intended**."
            )
        elif p.layout == "one-device":
            total = sum(r["vram"] for r in rows) / GB
            text += (
                f"All {p.ranks} ranks are listed on GPU 0, {total:.0f} GB of VRAM between "
                "them, and only GPU 0 is busy: the ranks time-share one GPU. Each rank must "
                "pick its own device by LOCAL_RANK (`torch.cuda.set_device(local_rank)`; "
                "ROCm PyTorch keeps the torch.cuda names). Answer **1**, **one-device**."
            )
        elif p.layout == "too-few-ranks":
            where = (
                "one rank exists, on GPU 0"
                if p.ranks == 1
                else f"{p.ranks} ranks exist, one each on GPUs 0 to {p.ranks - 1}"
            )
            text += (
                f"Only {where}: the launcher started fewer ranks than GPUs (torchrun's "
                "--nproc-per-node defaults to 1; it should be 8). Answer "
                f"**{busy}**, **too-few-ranks**."
            )
        else:
            small = [r for r in rows if r["gpu"] == 0 and r["vram"] < GB]
            text += (
                "Every GPU is busy with its own rank, but GPU 0 also lists "
                f"{len(small)} more processes with about 0.5 GB each, and their PIDs are the "
                "ranks of GPUs 1-7: each rank opened a context on GPU 0 before choosing its "
                "own device (a tensor or a call made before `set_device`). The job works on "
                f"all 8 GPUs, but GPU 0 has {sum(r['vram'] for r in small) / GB:.1f} GB less "
                "for its own rank and will run out of memory first. Answer **8**, "
                "**extra-contexts**."
            )
        return text

    def misconceptions(self, p: PlacementParams) -> list[Misconception]:
        out: list[Misconception] = []
        if p.layout in ("one-device", "too-few-ranks"):
            out.append(Misconception(
                "idle-draw-as-work", "gpus", GPUS,
                "Every GPU draws over 100 W, but an idle MI300X draws about 117 W at a 120 "
                "MHz clock and 0% GFX. Count the GPUs with GFX activity and a rank's memory.",
            ))  # fmt: skip
            out.append(Misconception(
                "idle-draw-as-work", "verdict", "as-intended",
                "The idle GPUs still draw over 100 W; that is their floor, not work.",
            ))  # fmt: skip
        if p.layout == "one-device" and p.ranks < GPUS:
            out.append(Misconception(
                "processes-as-gpus", "gpus", p.ranks,
                f"There are {p.ranks} rank processes, but every one is listed on GPU 0.",
            ))  # fmt: skip
        if p.layout == "extra-contexts":
            out.append(Misconception(
                "rows-as-gpus", "gpus", len(process_rows(p)),
                "The list has a row per process per GPU; the small rows on GPU 0 are the "
                "other ranks' extra contexts. Count distinct GPUs.",
            ))  # fmt: skip
            out.append(Misconception(
                "extra-contexts-as-one-device", "verdict", "one-device",
                "GPU 0's extra rows hold about 0.5 GB each and their PIDs also hold tens of "
                "GB on GPUs 1-7, where those ranks do their work: they are contexts, not "
                "ranks crowded onto GPU 0.",
            ))  # fmt: skip
        return out
