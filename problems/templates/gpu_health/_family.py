"""What the GPU-health templates share: the HGX nodes they draw (product name as
nvidia-smi prints it, memory in MiB and power limit from hardware_db, maximum SM clock,
PCI bus IDs of the eight GPUs), the GPU choice labels, a seeded generator for the
readings, and the node's `nvidia-smi`, drawn by the one renderer
(problems/templates/_nvidia_smi.py) with the driver the era table gives the node's
generation in the year of the statement (problems/templates/_era.py).

A scenario's parameters are the things a grader needs (part, fault, faulty GPU) plus an
integer `sample` that seeds every other reading, so the tool output is a pure function
of the parameters and two runs of one seed print the same text.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Literal

from hardware_db import catalog
from problems.templates._era import fleet_driver, fleet_moment, fleet_years
from problems.templates._nvidia_smi import GpuRow, Process, nvidia_smi

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
            banks=640,
        ),
        Node("h100-sxm", "NVIDIA H100 80GB HBM3", 1980, _HOPPER_BUS, 2560),
        Node("h200", "NVIDIA H200", 1980, _HOPPER_BUS),
        Node("b200", "NVIDIA B200", 1965, ("1B", "43", "52", "61", "9D", "C3", "D1", "DF")),
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


def node_smi(node: Node, rows: list[dict], rng: random.Random, process: str) -> str:
    """`nvidia-smi` on the node while eight single-GPU runs work, one per GPU: the rows'
    temp, draw, limit, mem and util, the date and driver of a fleet year drawn from `rng`
    (which should be a stream of its own, so the readings do not move), and one `process`
    per GPU holding nearly all of that GPU's memory."""
    year = rng.choice(fleet_years(node.slug))
    when = fleet_moment(rng, year)
    gpus = [
        GpuRow(
            name=node.smi_name,
            bus_id=node.bus_id(i),
            temp=r["temp"],
            watts=round(r["draw"]),
            cap=r["limit"],
            used_mib=r["mem"],
            total_mib=node.memory_mib,
            util=r["util"],
        )
        for i, r in enumerate(rows)
    ]
    procs = [
        Process(i, rng.randint(2_000, 4_000_000), process, r["mem"] - rng.randint(4, 530))
        for i, r in enumerate(rows)
    ]
    driver = fleet_driver(node.slug, year).version
    return "$ nvidia-smi\n" + nvidia_smi(driver, gpus, procs, when)
