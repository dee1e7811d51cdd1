"""The `nvidia-smi topo -m` matrix of a box described by topo-matrix's parameters: each
GPU's and NIC's CPU socket and PCIe switch group (-1: a CPU root port of its own).

The path rule is the driver's: NV# between two GPUs of an NVSwitch box, the group path
(PIX or PXB) under a shared switch, NODE within one socket, SYS across sockets. The
output copies the published layout (../shared/spec/tool-output/topo): tab-separated
columns, expanded to 8 as a terminal shows them, then the Legend and the NIC Legend.
"""

from __future__ import annotations

import re
from itertools import combinations
from typing import Any

from problems.templates.fabric._family import HOST, NV_LINKS, PATH_RANK, TOPO_LEGEND

_DEVICE = re.compile(r"^(GPU|NIC)(\d+)$")


def device_index(p: Any, name: str) -> tuple[str, int] | None:
    m = _DEVICE.match(name)
    if not m:
        return None
    kind, i = m.group(1), int(m.group(2))
    count = len(p.gpu_socket) if kind == "GPU" else len(p.nic_socket)
    return (kind, i) if i < count else None


def _where(p: Any, name: str) -> tuple[int, int]:
    kind, i = device_index(p, name)  # type: ignore[misc]
    if kind == "GPU":
        return p.gpu_socket[i], p.gpu_group[i]
    return p.nic_socket[i], p.nic_group[i]


def path(p: Any, a: str, b: str) -> str:
    """The matrix entry between two devices."""
    if a == b:
        return "X"
    if a.startswith("GPU") and b.startswith("GPU") and NV_LINKS[p.gpu]:
        return f"NV{NV_LINKS[p.gpu]}"
    (sa, ga), (sb, gb) = _where(p, a), _where(p, b)
    if ga >= 0 and ga == gb:
        return p.group_path
    return "NODE" if sa == sb else "SYS"


def gpu_names(p: Any) -> list[str]:
    return [f"GPU{i}" for i in range(len(p.gpu_socket))]


def nic_names(p: Any) -> list[str]:
    return [f"NIC{i}" for i in range(len(p.nic_socket))]


def closest_nic(p: Any) -> str:
    gpu = f"GPU{p.ask_gpu}"
    return min(nic_names(p), key=lambda n: PATH_RANK[path(p, gpu, n)])


def _affinity(p: Any, socket: int) -> str:
    c = HOST[p.gpu][0]
    return f"{socket * c}-{socket * c + c - 1},{(2 + socket) * c}-{(3 + socket) * c - 1}"


def topo_output(p: Any) -> str:
    """`nvidia-smi topo -m` as a terminal shows it (tabs expanded to 8 columns)."""
    gpus, nics = gpu_names(p), nic_names(p)
    devices = gpus + nics
    lines = ["\t" + "\t".join(devices) + "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID"]
    for d in devices:
        cells = [" X " if d == e else path(p, d, e) for e in devices]
        row = d + "\t" + "\t".join(cells)
        if d in gpus:
            s = p.gpu_socket[int(d[3:])]
            row += f"\t{_affinity(p, s)}\t{s}\t\tN/A"
        lines.append(row)
    out = [line.expandtabs(8).rstrip() for line in lines]
    out += ["", *TOPO_LEGEND.splitlines(), "", "NIC Legend:", ""]
    out += [f"  {n}: mlx5_{i}" for i, n in enumerate(nics)]
    return "\n".join(out)


def pair_counts(p: Any) -> dict[str, int]:
    """Unordered GPU pairs by the path the matrix prints, and by socket."""
    counts = {"SYS": 0, "NODE": 0, "cross": 0}
    for a, b in combinations(gpu_names(p), 2):
        word = path(p, a, b)
        counts[word] = counts.get(word, 0) + 1
        counts["cross"] += p.gpu_socket[int(a[3:])] != p.gpu_socket[int(b[3:])]
    return counts
