"""`nvidia-smi` as the driver prints it: the default table (date line, banner, one block
per GPU, then the Processes section), `nvidia-smi -L`, and GPU UUIDs. Every template that
shows nvidia-smi uses this module, so the layouts live in one place.

Layouts, by driver branch, copied from captures (column widths, where "Driver Version:"
and "CUDA Version:" start in the banner, the heading rows):

- up to R525, 79 columns: public captures of the older layout (525.105.17 on A100 and
  H800; the P100 and T4 captures of the Processes section, `GPU   GI   CI        PID`).
- R530 to R545, 89 columns: spec/tool-output/nvidia-smi/sample-2.txt (535.161.08): the
  date line after the command (ctime, then seven spaces), the table, a blank line of 89
  spaces, the Processes box and "No running processes found".
- R550 to R575, 91 columns: spec/tool-output/nvidia-smi/sample-1.txt (550.90.07, GPU
  rows); the Processes box widens with the table, its PID column to 16 characters
  (public captures: 550.135 with its date line, 570.124.06, 580.82.07 with one row per
  process: `|    0   N/A  N/A            1774      G   /usr/lib/xorg/Xorg   ...   4MiB |`).
- R580 and later: as R550, but the rule under the banner is `+---+---+---+`, not
  `|---+---+---|` (public 580.95.05 captures).

Between the table and the Processes box nvidia-smi prints a line of spaces (89 in the
captures); it is printed empty here, as several public captures show it, because
Markdown drops a whitespace-only line's spaces and a page must show what the statement
holds.

A process row is GPU index, GI and CI ("N/A" without MIG), PID, type (C compute, G
graphics), the process name and its memory in MiB; with nothing running the box holds
one "No running processes found" row. `nvidia-smi -L` prints `GPU <i>: <name> (UUID:
GPU-<uuid>)` per GPU (nvidia-smi(1): "List each of the NVIDIA GPUs in the system, along
with their UUIDs"); a UUID is 32 lower-case hex digits in 8-4-4-4-12 groups, as the
Xid captures in spec/tool-output/xid and `nvidia-smi -q` show it.
"""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass

from problems.templates._era import DRIVERS

# layout: (column widths, banner offsets of "Driver Version:" and "CUDA Version:", the
# two heading rows of the GPU table)
_TABLES = {
    "old": (
        (31, 22, 22),
        (26, 55),
        "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |",
        "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |",
    ),
    "r535": (
        (41, 22, 22),
        (36, 65),
        "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |",
        "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |",
    ),
    "r550": (
        (41, 24, 22),
        (36, 67),
        "| GPU  Name                 Persistence-M | Bus-Id          Disp.A "
        "| Volatile Uncorr. ECC |",
        "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage "
        "| GPU-Util  Compute M. |",
    ),
}
_TABLES["r580"] = _TABLES["r550"]
# layout: (PID column width, the Processes box's two heading rows)
_PROCESSES = {
    "old": (
        10,
        "|  GPU   GI   CI        PID   Type   Process name                  GPU Memory |",
        "|        ID   ID                                                   Usage      |",
    ),
    "r535": (
        10,
        "|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |",
        "|        ID   ID                                                             Usage      |",
    ),
    "r550": (
        16,
        "|  GPU   GI   CI              PID   Type   Process name                        "
        "GPU Memory |",
        "|        ID   ID                                                               "
        "Usage      |",
    ),
}
_PROCESSES["r580"] = _PROCESSES["r550"]


@dataclass(frozen=True)
class GpuRow:
    """What one GPU's block shows."""

    name: str
    bus_id: str  # 00000000:18:00.0
    temp: int
    watts: int
    cap: int
    used_mib: int
    total_mib: int
    util: int
    mig: str = "Disabled"  # "N/A" on parts without MIG


@dataclass(frozen=True)
class Process:
    gpu: int
    pid: int
    name: str
    mib: int
    kind: str = "C"


def layout_of(branch: int) -> str:
    if branch <= 525:
        return "old"
    if branch < 550:
        return "r535"
    return "r550" if branch < 580 else "r580"


def width(layout: str) -> int:
    return sum(_TABLES[layout][0]) + 4


def date_line(when: datetime.datetime) -> str:
    """The line nvidia-smi prints first: ctime, then seven spaces."""
    return f"{when:%a %b} {when.day:2d} {when:%H:%M:%S %Y}       "


def _cells(cols: tuple[int, ...], texts: tuple[str, ...], fill: str = " ") -> str:
    return "|" + "|".join(t.ljust(c, fill) for c, t in zip(cols, texts, strict=True)) + "|"


def _banner(driver: str, layout: str) -> list[str]:
    cols, (at_driver, at_cuda), head1, head2 = _TABLES[layout]
    cuda = DRIVERS[driver].cuda
    w = width(layout)
    banner = f"| NVIDIA-SMI {driver}".ljust(at_driver) + f"Driver Version: {driver}"
    banner = banner.ljust(at_cuda) + f"CUDA Version: {cuda}"
    left = "+" if layout == "r580" else "|"
    rule = left + "+".join("-" * c for c in cols) + "+"
    return [
        "+" + "-" * (w - 2) + "+",
        banner.ljust(w - 1) + "|",
        rule,
        head1,
        head2,
        _cells(cols, ("", "", "MIG M. ".rjust(cols[2]))),
        "|" + "+".join("=" * c for c in cols) + "|",
    ]


def _gpu_block(layout: str, i: int, g: GpuRow) -> list[str]:
    cols = _TABLES[layout][0]
    bus = f"{g.bus_id} Off"
    if layout == "old":
        name = g.name if len(g.name) <= 18 else g.name[:15] + "..."
        first = f" {i:>3}  {name:<18}  On   "
        power = f"{g.watts}W / {g.cap}W".rjust(14)
        mem = f"{g.used_mib}MiB / {g.total_mib}MiB".rjust(cols[1] - 1)
    else:
        first = f" {i:>3}  {g.name:<31}On  "
        cap = f"{g.cap}W" if layout == "r535" else f"{g.cap:>4}W"
        power = f"{g.watts}W / {cap}".rjust(24)
        total = f"{g.total_mib}MiB" if layout == "r535" else f"{g.total_mib:>6}MiB"
        mem = f"{g.used_mib}MiB / {total}".rjust(cols[1] - 1)
        bus = bus.rjust(cols[1] - 2)
    util = f"{g.util:>7}%      Default "
    return [
        _cells(cols, (first, f" {bus} ", "0 ".rjust(cols[2]))),
        _cells(cols, (f" N/A   {g.temp}C    P0{power} ", f"{mem} ", util)),
        _cells(cols, ("", "", f"{g.mig} ".rjust(cols[2]))),
        "+" + "+".join("-" * c for c in cols) + "+",
    ]


def _processes(layout: str, processes: list[Process]) -> list[str]:
    w = width(layout)
    pid_w, head1, head2 = _PROCESSES[layout]
    dash = "+" + "-" * (w - 2) + "+"
    lines = [
        "",  # nvidia-smi pads this line with spaces; see the module docstring
        dash,
        "| Processes:".ljust(w - 1) + "|",
        head1,
        head2,
        "|" + "=" * (w - 2) + "|",
    ]
    rest = w - (1 + 5 + 6 + 5 + pid_w + 7 + 3) - 2  # process name and memory
    for p in processes:
        mem = f"{p.mib}MiB"
        name = p.name if len(p.name) <= rest - len(mem) - 1 else p.name[: rest - len(mem) - 4]
        lines.append(
            f"|{p.gpu:>5}   N/A  N/A{p.pid:>{pid_w}}{p.kind:>7}   {name:<{rest - len(mem)}}{mem} |"
        )
    if not processes:
        lines.append("|  No running processes found".ljust(w - 1) + "|")
    return [*lines, dash]


def nvidia_smi(
    driver: str, gpus: list[GpuRow], processes: list[Process], when: datetime.datetime
) -> str:
    """The default `nvidia-smi` output, from its date line to the Processes box."""
    layout = layout_of(DRIVERS[driver].branch)
    lines = [date_line(when), *_banner(driver, layout)]
    for i, g in enumerate(gpus):
        lines += _gpu_block(layout, i, g)
    return "\n".join([*lines, *_processes(layout, processes)])


def gpu_uuid(rng: random.Random) -> str:
    """GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx: 128 random bits in 8-4-4-4-12 hex groups."""
    x = f"{rng.getrandbits(128):032x}"
    return f"GPU-{x[:8]}-{x[8:12]}-{x[12:16]}-{x[16:20]}-{x[20:]}"


def list_gpus(name: str, uuids: list[str]) -> str:
    """`nvidia-smi -L`."""
    return "\n".join(f"GPU {i}: {name} (UUID: {u})" for i, u in enumerate(uuids))
