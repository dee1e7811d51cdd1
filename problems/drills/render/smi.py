"""`nvidia-smi` and `nvidia-smi -q -i N` for one node of the drill's cluster, adapted from
problems/templates/_nvidia_smi.py (the default table, its layouts by driver branch) and the
`-q` layout of spec/tool-output/nvidia-smi-q/sample-2.txt (42-column field names, the
ECC Errors, Remapped Rows, Temperature, Power Readings and Clocks sections).

- A GPU that fell off the bus: nvidia-smi cannot open it and prints "Unable to determine
  the device handle for GPU 0000:<bus>:00.0: Unknown Error" instead of the table, as
  public reports show it (NVIDIA/open-gpu-kernel-modules issue 387, NVIDIA/nvidia-docker
  issue 1553 for `nvidia-smi -a -i 0`). After a reboot a GPU that is really gone is not
  enumerated at all: the table lists one GPU fewer.
- Drivers from R535 name the section "Clocks Event Reasons" (nvidia-smi(1) of R535+;
  "Clocks Throttle Reasons" in the R525 capture), with the same entries: Idle,
  Applications Clocks Setting, SW Power Cap, HW Slowdown (HW Thermal Slowdown, HW Power
  Brake Slowdown), Sync Boost, SW Thermal Slowdown, Display Clock Setting. The fleet runs
  R550 and later, so the newer name is printed.
"""

from __future__ import annotations

from problems.drills.cluster import Cluster, Gpu, Node
from problems.templates._era import DRIVERS
from problems.templates._nvidia_smi import (
    _TABLES,
    GpuRow,
    Process,
    _banner,
    _gpu_block,
    _processes,
    date_line,
    layout_of,
)
from problems.templates.incidents._xid_log import PLATFORMS

EVENT_REASONS = (
    ("Idle", 8),
    ("Applications Clocks Setting", 8),
    ("SW Power Cap", 8),
    ("HW Slowdown", 8),
    ("HW Thermal Slowdown", 12),
    ("HW Power Brake Slowdown", 12),
    ("Sync Boost", 8),
    ("SW Thermal Slowdown", 8),
    ("Display Clock Setting", 8),
)
ARCH = {"a100-sxm-80gb": "Ampere", "h100-sxm": "Hopper", "b200": "Blackwell"}


def lost_line(gpu: Gpu) -> str:
    return f"Unable to determine the device handle for GPU {gpu.bus_id[4:]}: Unknown Error"


def _mismatch(prompt: str, state: Cluster) -> str:
    """What nvidia-smi prints when the loaded kernel module is not the library's version:
    newer drivers add the library's version as major.minor ("NVML library version:
    570.124" for 570.124.06 in tinygrad/open-gpu-kernel-modules issue 47; "550.144" in
    intel/llvm issue 17614)."""
    short = ".".join(state.driver.split(".")[:2])
    return (
        f"{prompt}\nFailed to initialize NVML: Driver/library version mismatch\n"
        f"NVML library version: {short}"
    )


def _row(state: Cluster, g: Gpu) -> GpuRow:
    cap = g.limit or g.cap  # the Cap column is the enforced limit
    return GpuRow(state.gpu_name, g.bus_id, g.temp, g.watts, cap, g.used_mib, g.total_mib, g.util)


def process_pid(node: Node, g: Gpu) -> int:
    """The PID of the training process on GPU g (one a busy GPU), fixed by the node's boot."""
    return 40_000 + 97 * g.index + node.boot.second


def nvidia_smi(state: Cluster, node: Node) -> str:
    """The default table for the node's enumerated GPUs, or the handle error if one is lost."""
    prompt = f"root@{node.hostname}:~# nvidia-smi"
    if node.kernel_driver:
        return _mismatch(prompt, state)
    lost = [g for g in node.gpus if not g.on_bus and g.fault != "gone"]
    if lost:
        return "\n".join([prompt, *(lost_line(g) for g in lost)])
    gpus = [g for g in node.gpus if g.on_bus]
    layout = layout_of(DRIVERS[state.driver].branch)
    lines = [prompt, date_line(state.now), *_banner(state.driver, layout)]
    ecc_w = _TABLES[layout][0][2]
    for k, g in enumerate(gpus):
        block = _gpu_block(layout, k, _row(state, g))
        if g.ecc_unc:  # the Volatile Uncorr. ECC cell
            block[0] = block[0][: -(ecc_w + 1)] + f"{g.ecc_unc} ".rjust(ecc_w) + "|"
        lines += block
    procs = [
        Process(k, process_pid(node, g), "python3", g.used_mib - 520)
        for k, g in enumerate(gpus)
        if g.used_mib
    ]
    return "\n".join([*lines, *_processes(layout, procs)])


def nvidia_smi_list(state: Cluster, node: Node) -> str:
    """`nvidia-smi -L`."""
    lines = [f"root@{node.hostname}:~# nvidia-smi -L"]
    if node.kernel_driver:
        return _mismatch(lines[0], state)
    lost = [g for g in node.gpus if not g.on_bus and g.fault != "gone"]
    if lost:
        return "\n".join([*lines, *(lost_line(g) for g in lost)])
    gpus = [g for g in node.gpus if g.on_bus]
    lines += [f"GPU {k}: {state.gpu_name} (UUID: {g.uuid})" for k, g in enumerate(gpus)]
    return "\n".join(lines)


def _f(indent: int, name: str, value: object) -> str:
    return f"{' ' * indent}{name:<{42 - indent}}: {value}"


def nvidia_smi_q(state: Cluster, node: Node, index: int) -> str:
    """`nvidia-smi -q -i N`: the identity, clock event, ECC, remap, thermal, power and
    clock sections of GPU N (N counts enumerated GPUs, as nvidia-smi's index does)."""
    prompt = f"root@{node.hostname}:~# nvidia-smi -q -i {index}"
    if node.kernel_driver:
        return _mismatch(prompt, state)
    lost = [g for g in node.gpus if not g.on_bus and g.fault != "gone"]
    if lost:
        return "\n".join([prompt, lost_line(lost[0])])
    gpus = [g for g in node.gpus if g.on_bus]
    if index >= len(gpus):
        return f"{prompt}\nNo devices were found"
    g = gpus[index]
    d = DRIVERS[state.driver]
    events = set(g.clock_events) or ({"Idle"} if g.util == 0 else set())
    if "HW Thermal Slowdown" in events:
        events.add("HW Slowdown")
    lines = [
        prompt,
        "",
        "==============NVSMI LOG==============",
        "",
        _f(0, "Timestamp", f"{state.now:%a %b %d %H:%M:%S %Y}"),
        _f(0, "Driver Version", d.version),
        _f(0, "CUDA Version", d.cuda),
        "",
        _f(0, "Attached GPUs", len(gpus)),
        f"GPU {g.bus_id}",
        _f(4, "Product Name", state.gpu_name),
        _f(4, "Product Architecture", ARCH[state.accelerator]),
        _f(4, "Persistence Mode", "Enabled"),
        _f(4, "Serial Number", g.serial),
        _f(4, "GPU UUID", g.uuid),
        _f(4, "Minor Number", g.index),
        _f(4, "Performance State", "P0"),
        "    Clocks Event Reasons",
        *(_f(i, n, "Active" if n in events else "Not Active") for n, i in EVENT_REASONS),
        "    FB Memory Usage",
        _f(8, "Total", f"{g.total_mib} MiB"),
        _f(8, "Used", f"{g.used_mib} MiB"),
        _f(8, "Free", f"{g.total_mib - g.used_mib} MiB"),
        "    Utilization",
        _f(8, "Gpu", f"{g.util} %"),
        "    ECC Mode",
        _f(8, "Current", "Enabled"),
        _f(8, "Pending", "Enabled"),
        "    ECC Errors",
    ]
    for title, corr, unc in (
        ("Volatile", g.ecc_corr, g.ecc_unc),
        ("Aggregate", g.ecc_corr + g.ecc_corr_old, g.ecc_unc + g.remap_unc),
    ):
        lines += [
            f"        {title}",
            _f(12, "SRAM Correctable", 0),
            _f(12, "SRAM Uncorrectable", 0),
            _f(12, "DRAM Correctable", corr),
            _f(12, "DRAM Uncorrectable", unc),
        ]
    pending_now = 1 if g.remap_pending else 0
    lines += [
        "    Remapped Rows",
        _f(8, "Correctable Error", 0),
        _f(8, "Uncorrectable Error", g.remap_unc),
        _f(8, "Pending", "Yes" if g.remap_pending else "No"),
        _f(8, "Remapping Failure Occurred", "No"),
        "        Bank Remap Availability Histogram",
        _f(12, "Max", f"{2560 - g.remap_unc - pending_now} bank(s)"),
        _f(12, "High", f"{g.remap_unc + pending_now} bank(s)"),
        _f(12, "Partial", "0 bank(s)"),
        _f(12, "Low", "0 bank(s)"),
        _f(12, "None", "0 bank(s)"),
        "    Temperature",
        _f(8, "GPU Current Temp", f"{g.temp} C"),
        _f(8, "GPU Shutdown Temp", "92 C"),
        _f(8, "GPU Slowdown Temp", "89 C"),
        _f(8, "GPU Max Operating Temp", "87 C"),
        _f(8, "Memory Current Temp", f"{g.mem_temp} C"),
        _f(8, "Memory Max Operating Temp", "95 C"),
        "    Power Readings",
        _f(8, "Power Draw", f"{g.watts:.2f} W"),
        _f(8, "Current Power Limit", f"{g.limit or g.cap:.2f} W"),
        _f(8, "Requested Power Limit", f"{g.cap:.2f} W"),
        _f(8, "Default Power Limit", f"{g.cap:.2f} W"),
        "    Clocks",
        _f(8, "Graphics", f"{g.sm_clock} MHz"),
        _f(8, "SM", f"{g.sm_clock} MHz"),
        "    Max Clocks",
        _f(8, "Graphics", f"{g.max_sm_clock} MHz"),
        _f(8, "SM", f"{g.max_sm_clock} MHz"),
    ]
    return "\n".join(lines)


# Per-link speed `nvidia-smi nvlink -s` prints: NVLink 3 (A100) 25 GB/s, NVLink 4 (H100)
# 26.562 GB/s, NVLink 5 (B200) 53.125 GB/s, as public captures of each show it; a link
# that is down prints "<inactive>" (nvidia-smi(1), "nvlink -s, --status").
LINK_GBPS = {"a100-sxm-80gb": "25 GB/s", "h100-sxm": "26.562 GB/s", "b200": "53.125 GB/s"}


def nvlink_status(state: Cluster, node: Node) -> str:
    """`nvidia-smi nvlink -s`: each GPU's links and their speed."""
    prompt = f"root@{node.hostname}:~# nvidia-smi nvlink -s"
    lost = [g for g in node.gpus if not g.on_bus and g.fault != "gone"]
    if node.kernel_driver:
        return _mismatch(prompt, state)
    if lost:
        return f"{prompt}\n{lost_line(lost[0])}"
    links = PLATFORMS[state.platform][3]
    lines = [prompt]
    for k, g in enumerate(x for x in node.gpus if x.on_bus):
        lines.append(f"GPU {k}: {state.gpu_name} (UUID: {g.uuid})")
        for link in range(links):
            speed = "<inactive>" if link == g.nvlink_down else LINK_GBPS[state.accelerator]
            lines.append(f"\t Link {link}: {speed}")
    return "\n".join(lines)
