"""The kernel log xid-triage shows: `dmesg -T` filtered for the NVIDIA driver, generated
from the parameters alone. Formatting only; registers no template.

What a real log holds, and where each line's wording comes from:

- At boot, the module-load line with the driver's version and build stamp (the era
  table's driver for the platform's generation in the boot year; only years whose build
  stamp a public capture shows), nvidia-nvlink's init, one "enabling device" per GPU, and
  nvidia_uvm's taint notice.
- Before the first Xid of each GPU, the driver's "GPU at PCI:<bus>: GPU-<uuid>" and
  "GPU Board Serial Number" pair (NVIDIA's Xid guide: "The first Xid in the log file is
  preceded by a line that contains the GPU GUID"; spec/tool-output/xid/sample-1.txt shows
  it for each GPU).
- Each Xid in the driver's own wording (spec/tool-output/xid captures and the open
  kernel modules' format strings). An uncorrectable HBM error under error containment
  (A100, H100 and B200; the catalog applies 94/95 to all three) arrives as a sequence,
  never a bare 48: Xid 48 (the DBE, with its physAddr), Xid 63 (the row remapper
  recording a spare row for that address, "reset gpu to activate") and Xid 94 or 95
  (whether the error was contained to the process that touched it; NVIDIA GPU Memory
  Error Management, "User Visible Statistics": 48 an uncorrectable ECC error, 63 a row-
  remapping entry recorded, 94 contained, 95 uncontained). The 48 drawn here is
  uncontained (95, RST: Yes).
- When the fault kills a training job that spans the node, the launcher kills its other
  ranks and the driver logs Xid 45 (preemptive channel removal, "pid=..., name=...,
  Ch 0000000f" as public captures print it) on each peer GPU a second or two later, each
  after that GPU's own "GPU at PCI" pair. A row remap found by a health sweep (63) kills
  nothing and has no peers.

- On a Blackwell board (HGX B200) the codes are those NVIDIA's Xid catalog marks as
  applying to B100/GB200 (_xid_catalog.APPLIES): a link fault is Xid 145 in the wording
  public R570 captures print ("145, RLW_REMAP Fatal XC1 i0 Link 10 (0x00000082 0x00000040
  ...)"), never the 74 the catalog marks NO for Blackwell.
- From driver R565 on (the catalog's "Xid 154 linkage"), a fault whose recovery the
  catalog's bucket names is followed on the same GPU by Xid 154, "GPU recovery action
  changed from 0x0 (None) to 0x1 (GPU Reset Required)" (or 0x2, Node Reboot Required,
  after a 79), as the catalog quotes it. The fleet's Blackwell nodes run R570 or later
  (_era.FLEET), so every Blackwell log that has one shows it.

Bus-id sets are those of real 8-GPU boards (DGX A100; two HGX H100 captures); no public
HGX B200 capture of `nvidia-smi` was found, so its set repeats the first HGX H100's
layout (the same Supermicro/HGX baseboard slots). UUIDs are random 8-4-4-4-12 hex.
"""

from __future__ import annotations

import datetime
import random

from problems.templates._era import GENERATION, fleet_driver, fleet_moment, fleet_years
from problems.templates._nvidia_smi import gpu_uuid
from problems.templates.incidents._xid_catalog import LINKED_154_FROM_BRANCH, RECOVERY_154

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
    "hgx-b200": (
        "b200",
        "NVIDIA B200",
        (0x53, 0x64, 0x75, 0x86, 0x97, 0xA8, 0xB9, 0xCA),
        18,
        "gpu",
    ),
}
PROCS = ("python3", "pt_main_thread", "python3.10", "torchrun")
ANON = "pid='<unknown>', name=<unknown>, "
QUIET = (63,)  # found by a health sweep: no job died, no peer cleans up


def _when(d: datetime.datetime) -> str:
    """dmesg -T's ctime stamp: [Mon Aug  5 03:54:13 2024]."""
    return f"[{d:%a %b} {d.day:2d} {d:%H:%M:%S %Y}]"


def _head(bus: int, code: int) -> str:
    return f"NVRM: Xid (PCI:0000:{bus:02x}:00): {code}, "


# the compute class a Graphics Exception names (open-gpu-kernel-modules cl*c0.h)
COMPUTE_CLASS = {"ampere": "0000c6c0", "hopper": "0000cbc0", "blackwell": "0000cdc0"}


def _fault_lines(xid: int, bus: int, links: int, gen: str, who: str, rng) -> list[str]:
    """The driver's message(s) for this fault on this GPU, without the timestamp."""
    head = _head(bus, xid)
    addr = rng.randrange(0x1000000, 0x7FFFFFFF0) & ~0x1F
    if xid == 13:
        gpc, tpc = rng.randint(0, 7), rng.randint(0, 8)
        kind = rng.choice(("Out Of Range Address", "Misaligned Address"))
        cls = COMPUTE_CLASS[gen]
        return [
            f"{head}{who}Graphics SM Warp Exception on (GPC {gpc}, TPC {tpc}, SM 0): {kind}",
            f"{head}{who}Graphics Exception: ChID {rng.randint(8, 40):04x}, Class {cls}, "
            "Offset 00000000, Data 00000000",
        ]
    if xid == 31:
        access = rng.choice(("READ", "WRITE"))
        return [
            f"{head}{who}Ch {rng.randint(8, 40):08x}, intr 00000000. MMU Fault: ENGINE GRAPHICS "
            f"GPCCLIENT_T1_{rng.randint(0, 15)} faulted @ 0x{rng.randint(0x7000, 0x7FFF):04x}_"
            f"{rng.randrange(0, 2**32, 0x1000):08x}. Fault is of type "
            f"FAULT_{rng.choice(('PDE', 'PTE'))} ACCESS_TYPE_VIRT_{access}"
        ]
    remap = (
        f"{_head(bus, 63)}{ANON}Row Remapper: New row (0x{addr:016x}) marked for remapping, "
        "reset gpu to activate."
    )
    uncontained = f"{_head(bus, 95)}{who}Uncontained: LTC TAG (0x2,0x0). RST: Yes, D-RST: No"
    if xid == 48:
        return [
            f"{head}{ANON}An uncorrectable double bit error (DBE) has been detected on GPU in "
            f"the framebuffer at physAddr 0x{addr:x} partition {rng.randint(0, 15)}, "
            f"subpartition {rng.randint(0, 3)}.",
            remap,
            uncontained,
        ]
    if xid == 63:
        return [remap]
    if xid == 64:
        why = rng.choice(("Row Remapping table is full", "All reserved rows for bank are remapped"))
        return [f"{head}{ANON}Row Remapper Error: (0x{addr:016x}) - {why}"]
    if xid == 74:
        return [
            f"{head}{ANON}NVLink: fatal error detected on link {rng.randrange(links)}"
            "(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)"
        ]
    if xid == 145:
        return [
            f"{head}RLW_REMAP Fatal XC1 i0 Link {rng.randrange(links):02d} (0x00000082 "
            "0x00000040 0x00000000 0x00000000 0x00000000 0x00000000)"
        ]
    if xid == 79:
        return [
            f"{head}{ANON}GPU has fallen off the bus.",
            f"NVRM: GPU 0000:{bus:02x}:00.0: GPU has fallen off the bus.",
            "NVRM: A GPU crash dump has been created. If possible, please run",
            "NVRM: nvidia-bug-report.sh as root to collect this data before",
            "NVRM: the NVIDIA kernel module is unloaded.",
        ]
    if xid == 94:
        return [f"{head}{who}Contained: SM (0x1). RST: No, D-RST: No"]
    return [uncontained]


def _introduce(stamp: str, bus: int, rng: random.Random) -> list[str]:
    """The pair the driver prints before a GPU's first Xid."""
    serial = f"16{rng.randint(50, 53)}{rng.randint(10**8, 10**9 - 1)}"
    return [
        f"{stamp} NVRM: GPU at PCI:0000:{bus:02x}:00: {gpu_uuid(rng)}",
        f"{stamp} NVRM: GPU Board Serial Number: {serial}",
    ]


def kernel_log(platform: str, xid: int, gpu: int, log_seed: int) -> str:
    """The filtered dmesg for one fault on GPU `gpu` of the platform's node."""
    rng = random.Random(f"xid|{platform}|{xid}|{gpu}|{log_seed}")
    slug, _, buses, links, host = PLATFORMS[platform]
    era = random.Random(f"xid-era|{platform}|{log_seed}")
    year = era.choice([y for y in fleet_years(slug) if fleet_driver(slug, y).built])
    driver = fleet_driver(slug, year)
    boot = fleet_moment(era, year)
    lines = [
        f"{_when(boot)} NVRM: loading NVIDIA UNIX x86_64 Kernel Module  {driver.version}  "
        f"{driver.built}"
    ]
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
    stamp = _when(event)
    proc, first_pid = rng.choice(PROCS), rng.randint(20_000, 4_000_000)
    who = f"pid={first_pid + gpu}, name={proc}, "
    lines += _introduce(stamp, buses[gpu], rng)
    lines += [
        f"{stamp} {line}"
        for line in _fault_lines(xid, buses[gpu], links, GENERATION[slug], who, rng)
    ]
    if xid in RECOVERY_154 and driver.branch >= LINKED_154_FROM_BRANCH:
        value, label = RECOVERY_154[xid]
        lines.append(
            f"{stamp} {_head(buses[gpu], 154)}GPU recovery action changed from 0x0 (None) "
            f"to 0x{value:x} ({label})"
        )
    if xid not in QUIET:
        later = _when(event + datetime.timedelta(seconds=rng.randint(1, 2)))
        for rank, bus in enumerate(buses):
            if rank != gpu:
                lines += _introduce(later, bus, rng)
                lines.append(
                    f"{later} {_head(bus, 45)}pid={first_pid + rank}, name={proc}, "
                    f"Ch {rng.randint(8, 16):08x}"
                )
    prompt = f"root@{host}{rng.randint(1, 64):02d}:~# dmesg -T | grep -iE 'nvrm|nvidia'"
    return "\n".join([prompt, *lines])


def generation(platform: str) -> str:
    """The platform's GPU generation (ampere, hopper, blackwell), from the era table."""
    return GENERATION[PLATFORMS[platform][0]]


def bus_table(platform: str) -> str:
    """nvidia-smi's CSV of index, name and bus id, as recorded at bring-up."""
    _, name, buses, _, _ = PLATFORMS[platform]
    rows = [f"{i}, {name}, 00000000:{bus:02X}:00.0" for i, bus in enumerate(buses)]
    cmd = "$ nvidia-smi --query-gpu=index,name,pci.bus_id --format=csv"
    return "\n".join([cmd, "index, name, pci.bus_id", *rows])
