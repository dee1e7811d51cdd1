"""Kernel log lines for Xid 74 (an NVLink error) and Xid 79 (a GPU fallen off the bus), in
`dmesg -T` form, for the GPUs of the drill's cluster state.

The lines keep the wording and layout of spec/tool-output/xid/*.txt and of
problems/templates/incidents/_xid_log.py (whose ctime stamp and `NVRM: Xid (PCI:...)`
head this module reuses): each line is `[Www Mmm dd hh:mm:ss yyyy] NVRM: ...`; before a
GPU's first Xid the driver prints its "GPU at PCI:<bus>: GPU-<uuid>" and "GPU Board
Serial Number" pair (NVIDIA's Xid guide: "The first Xid in the log file is preceded by a
line that contains the GPU GUID"; sample-1.txt shows it for each GPU).

- Xid 74, NVLINK_ERROR: "NVLink: fatal error detected on link N(a, b, c, d, e, f, g)",
  the link index and the seven link error registers in hex, as _xid_log prints it and
  public R535 captures show it (pid and name unknown: the link, not a process, failed).
  NVIDIA's catalog (docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html) marks
  74 as applying to A100 and H100, not to Blackwell (which reports links through Xids
  144-150), with the immediate action WORKFLOW_NVLINK_ERR; its linkage column says R565
  and later drivers follow it with an Xid 154 only when the recovery the driver needs
  changes, so a link error that the job survives carries none here.
- Xid 79, GPU_HAS_FALLEN_OFF_THE_BUS: the Xid line, then the driver's "GPU 0000:<bus>:
  00.0: GPU has fallen off the bus." and its crash-dump notice (three lines asking for
  nvidia-bug-report.sh), as _xid_log prints them; the catalog's immediate action is
  RESTART_BM (reboot the node). From R565 (_xid_catalog.LINKED_154_FROM_BRANCH) the driver
  then logs Xid 154 "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot
  Required)" (_xid_catalog.RECOVERY_154).
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass

from problems.templates.incidents._xid_catalog import LINKED_154_FROM_BRANCH, RECOVERY_154
from problems.templates.incidents._xid_log import ANON, _head, _when

# The seven link error registers of a fatal NVLink error as public captures print them.
FATAL_LINK_FIELDS = (0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)


@dataclass(frozen=True)
class GpuIdentity:
    """What the driver names a GPU by: PCI bus (domain 0000, device 00), UUID, serial."""

    bus: int
    uuid: str
    serial: str


@dataclass(frozen=True)
class Xid74:
    at: datetime.datetime
    gpu: GpuIdentity
    link: int
    fields: tuple[int, ...] = FATAL_LINK_FIELDS

    def __post_init__(self) -> None:
        if len(self.fields) != 7:
            raise ValueError("an Xid 74 prints seven link error registers")
        if not 0 <= self.link < 18:
            raise ValueError(f"no NVLink {self.link} on A100 (12 links) or H100 (18 links)")


@dataclass(frozen=True)
class Xid79:
    at: datetime.datetime
    gpu: GpuIdentity


XidEvent = Xid74 | Xid79


def introduce(at: datetime.datetime, gpu: GpuIdentity) -> list[str]:
    """The pair the driver prints before a GPU's first Xid."""
    stamp = _when(at)
    return [
        f"{stamp} NVRM: GPU at PCI:0000:{gpu.bus:02x}:00: {gpu.uuid}",
        f"{stamp} NVRM: GPU Board Serial Number: {gpu.serial}",
    ]


def xid74_lines(event: Xid74) -> list[str]:
    """The NVLink error line, stamped."""
    regs = ", ".join(f"0x{v:x}" for v in event.fields)
    return [
        f"{_when(event.at)} {_head(event.gpu.bus, 74)}{ANON}NVLink: fatal error detected on "
        f"link {event.link}({regs})"
    ]


def xid79_lines(event: Xid79, driver_branch: int = 550) -> list[str]:
    """The fallen-off-the-bus lines, stamped, with Xid 154 from R565 on."""
    stamp, bus = _when(event.at), event.gpu.bus
    lines = [
        f"{_head(bus, 79)}{ANON}GPU has fallen off the bus.",
        f"NVRM: GPU 0000:{bus:02x}:00.0: GPU has fallen off the bus.",
        "NVRM: A GPU crash dump has been created. If possible, please run",
        "NVRM: nvidia-bug-report.sh as root to collect this data before",
        "NVRM: the NVIDIA kernel module is unloaded.",
    ]
    if driver_branch >= LINKED_154_FROM_BRANCH:
        value, label = RECOVERY_154[79]
        lines.append(
            f"{_head(bus, 154)}GPU recovery action changed from 0x0 (None) to 0x{value:x} ({label})"
        )
    return [f"{stamp} {line}" for line in lines]


def render_xid_log(events: Sequence[XidEvent], driver_branch: int = 550) -> str:
    """`dmesg -T | grep NVRM` for these events in time order, each GPU introduced once."""
    seen: set[int] = set()
    lines: list[str] = []
    for event in sorted(events, key=lambda e: (e.at, e.gpu.bus)):
        if event.gpu.bus not in seen:
            seen.add(event.gpu.bus)
            lines += introduce(event.at, event.gpu)
        if isinstance(event, Xid74):
            lines += xid74_lines(event)
        else:
            lines += xid79_lines(event, driver_branch)
    return "\n".join(lines)
