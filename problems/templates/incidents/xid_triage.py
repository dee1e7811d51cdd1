"""xid-triage: read one Xid out of an 8-GPU node's kernel log, find the GPU it names,
say what happened and pick the first thing to do.

Realism: the log is `dmesg -T` filtered for the NVIDIA driver, as engineers paste it:
the module-load and device-enable lines at boot (one per GPU, so every bus appears),
then days later the driver's "GPU at PCI / Board Serial Number" pair and the Xid line(s)
for exactly one GPU, in the driver's own wording (taken from public captures and the open
kernel modules' format strings). The Xid line names the GPU by PCI bus in lower case
(`PCI:0000:b9:00`); the second block is `nvidia-smi --query-gpu=index,name,pci.bus_id`
recorded at bring-up, with the 8-digit domain and upper case (`00000000:B9:00.0`), so
the learner has to match the bus, not count lines. Bus-id sets are those of real 8-GPU
boards (DGX A100; two HGX H100 captures). Only Ampere-and-later codes are drawn, so
row remapping (63/64) and error containment (94/95) apply.

Meanings and first actions follow NVIDIA's Xid catalog (its immediate-action column),
GPU debug guidelines and memory error management notes: 13 and 31 are almost always the
application's own bug, and the catalog's first action is to restart the application
(the GPU needs nothing), with debugging it (compute-sanitizer) the follow-up if it
faults again; 94 was contained to the process that touched the bad memory (restart
that job; the reset can wait); 63 records a spare row that activates at
the next reset, and containment keeps the bad row from new work meanwhile (reset when
the GPU's current work ends); 48 alone, with no containment report, and 95 need the
work stopped and the GPU reset; 64 means the remap itself failed (replace the GPU); 74
is an NVLink fault (check the link first); 79 means the GPU no longer answers on PCIe,
so a GPU reset cannot reach it (drain and power-cycle the node).

Discrimination: on the event part, 63 and 64 swapped (remap-recorded-vs-failed), 94
and 95 swapped (contained-vs-uncontained), an MMU page fault read as a memory hardware
error (page-fault-as-ecc). On the action part: an application fault blamed on the GPU
(app-fault-blamed-on-gpu) or debugged before the restart the catalog calls for
(debug-before-restart); a
bare DBE handled as if contained (dbe-treated-as-contained); a pending remap treated as
an emergency (pending-remap-is-not-urgent) or an RMA (remap-is-not-failure, also for a
single DBE); a failed remap "fixed" by a reset (reset-after-failed-remap); a contained
error handled as uncontained (contained-treated-as-uncontained) or as the job's own bug
(contained-treated-as-app-bug), and an uncontained one as contained
(uncontained-restart-only); a reset tried on a GPU that fell off the bus
(reset-unreachable-gpu); an NVLink fault sent straight to RMA (nvlink-rma-first). On the
GPU index, counting rows from one (counted-from-one).
"""

from __future__ import annotations

import datetime
import random
from typing import Literal

from pydantic import Field

from hardware_db import catalog
from problems.engine.registry import register
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates.incidents._family import choice_part, fenced, menu
from problems.templates.incidents._xid_catalog import ACTIONS, EVENTS, EXPLAIN, MEANING, SLIPS

Platform = Literal["dgx-a100", "hgx-h100-a", "hgx-h100-b"]
XidCode = Literal[13, 31, 48, 63, 64, 74, 79, 94, 95]

# platform: (accelerator slug, nvidia-smi name, bus numbers in index order, NVLinks, host)
PLATFORMS: dict[str, tuple[str, str, tuple[int, ...], int, str]] = {
    "dgx-a100": (
        "a100-sxm-80gb",
        "NVIDIA A100-SXM4-80GB",
        (0x07, 0x0F, 0x47, 0x4E, 0x87, 0x90, 0xB7, 0xBD),
        12,
        "dgx",
    ),
    "hgx-h100-a": (
        "h100-sxm",
        "NVIDIA H100 80GB HBM3",
        (0x53, 0x64, 0x75, 0x86, 0x97, 0xA8, 0xB9, 0xCA),
        18,
        "gpu",
    ),
    "hgx-h100-b": (
        "h100-sxm",
        "NVIDIA H100 80GB HBM3",
        (0x8D, 0x91, 0x95, 0x99, 0xAB, 0xAF, 0xB3, 0xB7),
        18,
        "node",
    ),
}
XIDS: tuple[int, ...] = (13, 31, 48, 63, 64, 74, 79, 94, 95)
DRIVER = "535.183.01  Sun May 12 19:39:15 UTC 2024"  # as in a public capture

PROCS = ("python3", "pt_main_thread", "python3.10", "torchrun")


class XidParams(Params):
    platform: Platform
    xid: XidCode
    gpu: int = Field(ge=0, le=7)
    log_seed: int = Field(ge=0, le=2**31 - 1)


def _when(d: datetime.datetime) -> str:
    """dmesg -T's ctime stamp: [Mon Aug  5 03:54:13 2024]."""
    return f"[{d:%a %b} {d.day:2d} {d:%H:%M:%S %Y}]"


def _xid_lines(p: XidParams, rng: random.Random) -> list[str]:
    """The driver's message(s) for this Xid on this GPU, without the timestamp."""
    _, _, buses, links, _ = PLATFORMS[p.platform]
    bus = buses[p.gpu]
    head = f"NVRM: Xid (PCI:0000:{bus:02x}:00): {p.xid}, "
    anon = "pid='<unknown>', name=<unknown>, "
    who = f"pid={rng.randint(20_000, 4_000_000)}, name={rng.choice(PROCS)}, "
    addr = rng.randrange(0x1000000, 0x7FFFFFFF0) & ~0x1F
    hopper = p.platform != "dgx-a100"
    if p.xid == 13:
        gpc, tpc = rng.randint(0, 7), rng.randint(0, 8)
        kind = rng.choice(("Out Of Range Address", "Misaligned Address"))
        cls = "0000cbc0" if hopper else "0000c6c0"
        return [
            f"{head}{who}Graphics SM Warp Exception on (GPC {gpc}, TPC {tpc}, SM 0): {kind}",
            f"{head}{who}Graphics Exception: ChID {rng.randint(8, 40):04x}, Class {cls}, "
            "Offset 00000000, Data 00000000",
        ]
    if p.xid == 31:
        access = rng.choice(("READ", "WRITE"))
        return [
            f"{head}{who}Ch {rng.randint(8, 40):08x}, intr 00000000. MMU Fault: ENGINE GRAPHICS "
            f"GPCCLIENT_T1_{rng.randint(0, 15)} faulted @ 0x{rng.randint(0x7000, 0x7FFF):04x}_"
            f"{rng.randrange(0, 2**32, 0x1000):08x}. Fault is of type "
            f"FAULT_{rng.choice(('PDE', 'PTE'))} ACCESS_TYPE_VIRT_{access}"
        ]
    if p.xid == 48:
        return [
            f"{head}{anon}An uncorrectable double bit error (DBE) has been detected on GPU in "
            f"the framebuffer at physAddr 0x{addr:x} partition {rng.randint(0, 15)}, "
            f"subpartition {rng.randint(0, 3)}."
        ]
    if p.xid == 63:
        return [
            f"{head}{anon}Row Remapper: New row (0x{addr:016x}) marked for remapping, "
            "reset gpu to activate."
        ]
    if p.xid == 64:
        why = rng.choice(("Row Remapping table is full", "All reserved rows for bank are remapped"))
        return [f"{head}{anon}Row Remapper Error: (0x{addr:016x}) - {why}"]
    if p.xid == 74:
        return [
            f"{head}{anon}NVLink: fatal error detected on link {rng.randrange(links)}"
            "(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)"
        ]
    if p.xid == 79:
        return [
            f"{head}{anon}GPU has fallen off the bus.",
            f"NVRM: GPU 0000:{bus:02x}:00.0: GPU has fallen off the bus.",
            "NVRM: A GPU crash dump has been created. If possible, please run",
            "NVRM: nvidia-bug-report.sh as root to collect this data before",
            "NVRM: the NVIDIA kernel module is unloaded.",
        ]
    if p.xid == 94:
        return [f"{head}{who}Contained: SM (0x1). RST: No, D-RST: No"]
    return [f"{head}{who}Uncontained: LTC TAG (0x2,0x0). RST: Yes, D-RST: No"]


def kernel_log(p: XidParams) -> str:
    """The filtered dmesg, generated from the parameters alone."""
    rng = random.Random(f"xid|{p.platform}|{p.xid}|{p.gpu}|{p.log_seed}")
    _, _, buses, _, host = PLATFORMS[p.platform]
    boot = datetime.datetime(2025, 1, 1) + datetime.timedelta(
        days=rng.randint(0, 300), seconds=rng.randint(0, 86_399)
    )
    lines = [f"{_when(boot)} NVRM: loading NVIDIA UNIX x86_64 Kernel Module  {DRIVER}"]
    nvlink = boot + datetime.timedelta(seconds=1)
    lines.append(
        f"{_when(nvlink)} nvidia-nvlink: Nvlink Core is being initialized, major device number "
        f"{rng.randint(230, 511)}"
    )
    for bus in buses:
        lines.append(f"{_when(nvlink)} nvidia 0000:{bus:02x}:00.0: enabling device (0000 -> 0002)")
    uvm = nvlink + datetime.timedelta(seconds=2)
    lines.append(
        f"{_when(uvm)} nvidia_uvm: module uses symbols nvUvmInterfaceDisableAccessCntr from "
        "proprietary module nvidia, inheriting taint."
    )
    event = boot + datetime.timedelta(days=rng.randint(1, 40), seconds=rng.randint(0, 86_399))
    uuid = "-".join(
        "".join(rng.choice("0123456789abcdef") for _ in range(n)) for n in (8, 4, 4, 4, 12)
    )
    stamp = _when(event)
    lines.append(f"{stamp} NVRM: GPU at PCI:0000:{buses[p.gpu]:02x}:00: GPU-{uuid}")
    serial = f"16{rng.randint(50, 53)}{rng.randint(10**8, 10**9 - 1)}"
    lines.append(f"{stamp} NVRM: GPU Board Serial Number: {serial}")
    lines += [f"{stamp} {line}" for line in _xid_lines(p, rng)]
    prompt = f"root@{host}{rng.randint(1, 64):02d}:~# dmesg -T | grep -iE 'nvrm|nvidia'"
    return "\n".join([prompt, *lines])


def bus_table(p: XidParams) -> str:
    """nvidia-smi's CSV of index, name and bus id, as recorded at bring-up."""
    _, name, buses, _, _ = PLATFORMS[p.platform]
    rows = [f"{i}, {name}, 00000000:{bus:02X}:00.0" for i, bus in enumerate(buses)]
    cmd = "$ nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv"
    return "\n".join([cmd, "index, name, pci.bus_id", *rows])


@register
class XidTriage(Template):
    slug = "xid-triage"
    title = "Triage an Xid from a node's kernel log"
    family = "incidents"
    lessons = ("troubleshooting-gpu-clusters", "from-symptoms-to-device-evidence")
    skills = ("xid-errors", "incident-triage", "gpu-telemetry")
    difficulty = 3
    version = 2  # issue 34: Xid 13/31 restart the application first, as NVIDIA's catalog says
    Params = XidParams

    def generate(self, rng: random.Random) -> XidParams:
        return XidParams(
            platform=rng.choice(tuple(PLATFORMS)),
            xid=rng.choice(XIDS),
            gpu=rng.randint(0, 7),
            log_seed=rng.randint(0, 2**31 - 1),
        )

    def solve(self, p: XidParams) -> dict[str, Part]:
        event, action = MEANING[p.xid]
        return {
            "gpu": Part("gpu", p.gpu, kind=Kind.INTEGER, tolerance=Exact(), label="GPU index"),
            "event": choice_part("event", event, tuple(EVENTS), "What happened"),
            "action": choice_part("action", action, tuple(ACTIONS), "First action"),
        }

    def statement(self, p: XidParams) -> str:
        acc = catalog.accelerator(PLATFORMS[p.platform][0])
        if p.xid == 63:  # a remap recorded from correctable errors kills nothing
            why = "A routine health sweep flagged an 8-GPU server"
        else:
            why = "A training job died overnight on an 8-GPU server"
        return (
            f"{why} with {acc.prose_name} GPUs. The on-call engineer pulled the "
            "NVIDIA driver's kernel messages:\n\n"
            + fenced(kernel_log(p))
            + "\n\nand the node's GPU inventory, recorded by `nvidia-smi` at bring-up:\n\n"
            + fenced(bus_table(p))
            + "\n\n1. Which GPU (its `nvidia-smi` index) raised the error?\n"
            "2. What happened? Answer with one of these words:\n\n"
            + menu(EVENTS)
            + "\n\n3. What should the on-call engineer do first? One of:\n\n"
            + menu(ACTIONS)
        )

    def solution(self, p: XidParams) -> str:
        bus = PLATFORMS[p.platform][2][p.gpu]
        event, action = MEANING[p.xid]
        return (
            f"Skip the boot lines: the only Xid in the log is `Xid (PCI:0000:{bus:02x}:00): "
            f"{p.xid}`. The part in brackets is the GPU's PCI address (domain, bus, device); "
            "the number after the colon is the Xid code. In the inventory the same GPU is "
            f"`00000000:{bus:02X}:00.0` (nvidia-smi writes an 8-digit domain, upper-case hex "
            f"and the function), which is the row with index **{p.gpu}**. Indices start at 0, "
            "so read the index column rather than counting rows.\n\n"
            f"Xid {p.xid}: {EXPLAIN[p.xid]} So the event is **{event}** and the first "
            f"action is **{action}**.\n\n"
            "How the codes in this family differ: 13 and 31 come from the program's own "
            "accesses; 48 is the raw double-bit error, 63 records the row that will replace "
            "the bad one at the next reset and 64 says that replacement failed; 94 was "
            "contained to one process, 95 was not; 74 is a link, 79 the whole device gone "
            "from PCIe."
        )

    def misconceptions(self, p: XidParams) -> list[Misconception]:
        out = []
        if p.gpu < 7:
            out.append(
                Misconception(
                    "counted-from-one",
                    "gpu",
                    p.gpu + 1,
                    "That counts the inventory rows from one. nvidia-smi numbers GPUs from 0: "
                    "find the row whose bus id matches the Xid's and read its index.",
                )
            )
        for part, value, code, feedback in SLIPS.get(p.xid, ()):
            out.append(Misconception(code, part, value, feedback))
        return out
