"""What the GPU-health templates share: the HGX nodes they draw (product name as
nvidia-smi prints it, memory in MiB and power limit from hardware_db, maximum SM clock,
PCI bus IDs of the eight GPUs, driver), the GPU choice labels, a seeded generator for
the readings, and the default `nvidia-smi` table, laid out as the real captures in
spec/tool-output/nvidia-smi are.

A scenario's parameters are the things a grader needs (part, fault, faulty GPU) plus an
integer `sample` that seeds every other reading, so the tool output is a pure function
of the parameters and two runs of one seed print the same text.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from hardware_db import catalog

GPUS = 8
GPU_LABELS = tuple(f"GPU {i}" for i in range(GPUS))
NONE = "none"
GPU_CHOICES = (*GPU_LABELS, NONE)
SAMPLE_MAX = 2**31 - 1

Hgx = Literal["a100-sxm-80gb", "h100-sxm", "h200", "b200"]


@dataclass(frozen=True)
class Node:
    slug: str
    smi_name: str  # product name as nvidia-smi prints it
    max_sm_mhz: int  # nvidia-smi -q "Max Clocks / SM"
    bus_ids: tuple[str, ...]  # the eight GPUs' PCI bus numbers, in index order
    driver: str
    cuda: str
    banks: int | None = None  # row-remapper banks (Bank Remap Availability Histogram)

    @property
    def acc(self) -> catalog.Accelerator:
        return catalog.accelerator(self.slug)

    @property
    def memory_mib(self) -> int:
        return round(self.acc.memory_reported_bytes / 2**20)

    @property
    def cap_w(self) -> int:
        return int(self.acc.tdp_watts)

    @property
    def label(self) -> str:
        return f"{self.acc.vendor} {self.acc.name}"

    def bus_id(self, gpu: int) -> str:
        return f"00000000:{self.bus_ids[gpu]}:00.0"


_HOPPER_BUS = ("18", "2A", "3A", "5D", "9A", "AB", "BA", "DB")
NODES: dict[str, Node] = {
    n.slug: n
    for n in (
        Node(
            "a100-sxm-80gb",
            "NVIDIA A100-SXM4-80GB",
            1410,
            ("07", "0F", "47", "4E", "87", "90", "B7", "BD"),
            "550.90.07",
            "12.4",
            banks=640,
        ),
        Node("h100-sxm", "NVIDIA H100 80GB HBM3", 1980, _HOPPER_BUS, "550.90.07", "12.4", 2560),
        Node("h200", "NVIDIA H200", 1980, _HOPPER_BUS, "550.90.07", "12.4"),
        Node(
            "b200",
            "NVIDIA B200",
            1965,
            ("1B", "43", "52", "61", "9D", "C3", "D1", "DF"),
            "580.95.05",
            "13.0",
        ),
    )
}


def gpu_label(gpu: int | None) -> str:
    return NONE if gpu is None else GPU_LABELS[gpu]


def readings_rng(slug: str, sample: int, *keys: object) -> random.Random:
    """The generator behind a variant's readings: fixed by the slug, the sample and any
    other parameters that shape them (a string seed is hashed the same way every run)."""
    return random.Random(":".join(str(k) for k in (slug, sample, *keys)))


def others(rng: random.Random, exclude: set[int], k: int) -> list[int]:
    """k distinct GPU indexes outside `exclude`."""
    return rng.sample([i for i in range(GPUS) if i not in exclude], k)


def gpu_or_none(fault_free: bool, gpu: int | None) -> None:
    """Validator helper: a fault names a GPU, no fault names none."""
    if fault_free and gpu is not None:
        raise ValueError("with no fault the GPU must be null")
    if not fault_free and gpu is None:
        raise ValueError("a fault needs a GPU index")


def _rule(left: str, fill: str, right: str) -> str:
    """A table rule: "+---+---+---+", "|---+---+---+" or "|===+===+===|"."""
    return left + "+".join(fill * w for w in (41, 24, 22)) + right


def _cells(a: str, b: str, c: str) -> str:
    """A header row of the three columns, as nvidia-smi aligns them."""
    return f"| {a:<39} | {b:>22} | {c:>20} |"


def smi_table(node: Node, rows: list[dict]) -> str:
    """The default `nvidia-smi` table (driver 550+ layout, no Processes section) for
    per-GPU rows of temp, draw, limit, mem and util."""
    rule = "+" + "-" * 89 + "+"
    lines = [
        "$ nvidia-smi",
        rule,
        f"| NVIDIA-SMI {node.driver:<23}Driver Version: {node.driver:<15}"
        f"CUDA Version: {node.cuda:<9}|",
        _rule("|", "-", "+"),
        _cells(
            "GPU  Name                 Persistence-M",
            "Bus-Id          Disp.A",
            "Volatile Uncorr. ECC",
        ),
        _cells("Fan  Temp   Perf          Pwr:Usage/Cap", "Memory-Usage", "GPU-Util  Compute M."),
        _cells("", "", "MIG M."),
        _rule("|", "=", "|"),
    ]
    for i, r in enumerate(rows):
        power = f"{round(r['draw'])}W / {r['limit']:>4}W"
        memory = f"{r['mem']}MiB / {node.memory_mib:>6}MiB"
        lines += [
            f"|{i:>4}  {node.smi_name:<31}On  |   {node.bus_id(i)} Off |{0:>21} |",
            f"| N/A  {r['temp']:>3}C    P0  {power:>22} |{memory:>23} |"
            f"{r['util']:>7}%      Default |",
            _cells("", "", "Disabled"),
            _rule("+", "-", "+"),
        ]
    return "\n".join(lines)
