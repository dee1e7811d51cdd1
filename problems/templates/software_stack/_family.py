"""What the software-stack templates share: verified driver and CUDA version figures (the
drivers themselves live in the one era table, problems/templates/_era.py), the PyTorch
wheels that exist, the NVIDIA GPUs the statements show, and an idle node's `nvidia-smi`
(drawn by the one renderer, problems/templates/_nvidia_smi.py).

Sources (each figure below was checked against them):

- NVIDIA CUDA Toolkit Release Notes, Table 3 "CUDA Toolkit and Corresponding Driver
  Versions" (Linux x86_64 GA minimums: 11.8 >= 520.61.05, 12.0 >= 525.60.13, 12.1 >=
  530.30.02, 12.2 >= 535.54.03, 12.3 >= 545.23.06, 12.4 >= 550.54.14, 12.5 >= 555.42.02,
  12.6 >= 560.28.03, 12.8 >= 570.26, 12.9 >= 575.51.03, 13.0 >= 580.65.06), and the update
  rows that name the driver versions used here (470.82.01, 510.47.03, 515.48.07,
  525.85.12, 535.104.05, 545.23.08, 550.54.15, 555.42.06, 560.35.03, 570.124.06,
  575.57.08). Read through a verbatim copy of the table, cross-checked with scripts that
  quote the same rows.
- NVIDIA "CUDA Compatibility", Minor Version Compatibility (Table 1): CUDA 11.x runs on
  drivers >= 450 (450.80.02 on Linux), 12.x on >= 525, 13.x on >= 580, with a limited
  feature set (no JIT of PTX newer than the driver).
- `nvidia-smi` captures in /work/shared/spec/tool-output/nvidia-smi (550.90.07 / CUDA 12.4
  wide layout; 535.161.08 / CUDA 12.2 layout) and public captures of the older layout
  (525.105.17 / CUDA 12.0 on A100-SXM4-80GB and H800); 510.73.08 reports CUDA 11.6 in
  the nvidia-smi-q capture. A driver reports the CUDA version of the toolkit it shipped
  with.
- PyTorch's previous-versions page: which CUDA builds each release published (2.3.1:
  cu118, cu121; 2.4.1 and 2.5.1: cu118, cu121, cu124; 2.6.0: cu118, cu124, cu126; 2.7.1:
  cu118, cu126, cu128; 2.8.0: cu126, cu128, cu129). Builds before cu128 carry no sm_100
  kernels (Blackwell), as their own warning lists (sm_50 ... sm_90).
- ROCm "AMD GPU specifications" table (Instinct GPUs): MI250X gfx90a (CDNA2, 220 CUs),
  MI300X and MI325X gfx942 (CDNA3, 304 CUs, 38 per XCD, 64 KiB LDS), MI355X gfx950
  (CDNA4, 256 CUs, 32 per XCD, 160 KiB LDS), all with a wavefront size of 64.
"""

from __future__ import annotations

import datetime
import hashlib
from dataclasses import dataclass

from hardware_db import catalog
from problems.templates._era import DRIVERS as ERA
from problems.templates._nvidia_smi import GpuRow, nvidia_smi

# The driver versions these templates draw (a fixed list: it is the parameters' domain)
# -> (branch, CUDA version its nvidia-smi banner reports), from the one era table.
_VERSIONS = (
    "470.82.01",
    "510.47.03",
    "510.73.08",
    "515.48.07",
    "520.61.05",
    "525.85.12",
    "525.105.17",
    "535.104.05",
    "535.161.08",
    "545.23.08",
    "550.54.15",
    "550.90.07",
    "555.42.06",
    "560.35.03",
    "570.124.06",
    "575.57.08",
    "580.65.06",
)
DRIVERS: dict[str, tuple[int, str]] = {v: (ERA[v].branch, ERA[v].cuda) for v in _VERSIONS}
DRIVER_VERSIONS = tuple(DRIVERS)

# CUDA build -> the Linux driver its toolkit GA requires (Table 3).
BUILD_GA_DRIVER: dict[str, str] = {
    "11.8": "520.61.05",
    "12.1": "530.30.02",
    "12.4": "550.54.14",
    "12.6": "560.28.03",
    "12.8": "570.26",
    "12.9": "575.51.03",
}
BUILDS = tuple(BUILD_GA_DRIVER)
# CUDA major -> the minor-version-compatibility floor (Linux).
MVC_FLOOR: dict[int, str] = {11: "450.80.02", 12: "525.60.13"}

WHEELS: dict[str, tuple[str, ...]] = {
    "2.3.1": ("11.8", "12.1"),
    "2.4.1": ("11.8", "12.1", "12.4"),
    "2.5.1": ("11.8", "12.1", "12.4"),
    "2.6.0": ("11.8", "12.4", "12.6"),
    "2.7.1": ("11.8", "12.6", "12.8"),
    "2.8.0": ("12.6", "12.8", "12.9"),
}
TORCH_VERSIONS = tuple(WHEELS)


def branch_of(version: str) -> int:
    return int(version.split(".")[0])


def cuda_tuple(cuda: str) -> tuple[int, int]:
    major, minor = cuda.split(".")
    return int(major), int(minor)


def cu_tag(cuda: str) -> str:
    """The wheel suffix: "12.4" -> "cu124"."""
    return "cu" + cuda.replace(".", "")


def found_version(cuda: str) -> int:
    """How PyTorch prints a driver's CUDA version: 11.4 -> 11040."""
    major, minor = cuda_tuple(cuda)
    return major * 1000 + minor * 10


@dataclass(frozen=True)
class NvGpu:
    """An NVIDIA GPU as nvidia-smi prints it, and the oldest driver branch this module
    pairs it with (a conservative floor, not a support statement)."""

    name: str
    mem_mib: int
    cap_w: int
    idle_w: tuple[int, int]
    min_branch: int
    mig: bool
    sm: str


NV_GPUS: dict[str, NvGpu] = {
    "a100": NvGpu("NVIDIA A100-SXM4-80GB", 81920, 400, (52, 64), 470, True, "sm_80"),
    "h100": NvGpu("NVIDIA H100 80GB HBM3", 81559, 700, (69, 96), 525, True, "sm_90"),
    "h200": NvGpu("NVIDIA H200", 143771, 700, (74, 80), 550, True, "sm_90"),
    "l40s": NvGpu("NVIDIA L40S", 46068, 350, (32, 38), 535, False, "sm_89"),
    "b200": NvGpu("NVIDIA B200", 183359, 1000, (138, 152), 570, True, "sm_100"),
}
NV_GPU_SLUGS = tuple(NV_GPUS)
BUS_IDS = ("18", "2A", "3A", "5D", "9A", "AB", "BA", "DB")


def params_hash(*values: object) -> int:
    """A stable number from the parameters, for details a statement draws from them."""
    return int.from_bytes(hashlib.sha256(repr(values).encode()).digest()[:8], "big")


# PyTorch release dates (the PyTorch release pages), for the date a node shows.
TORCH_RELEASED = {
    "2.3.1": datetime.date(2024, 6, 5),
    "2.4.1": datetime.date(2024, 9, 4),
    "2.5.1": datetime.date(2024, 10, 29),
    "2.6.0": datetime.date(2025, 1, 29),
    "2.7.1": datetime.date(2025, 6, 4),
    "2.8.0": datetime.date(2025, 8, 6),
}


def idle_smi(driver: str, gpu: str, torch: str, count: int = 1) -> str:
    """`nvidia-smi` on an idle node: the first `count` GPUs, nothing running, dated some
    weeks after both the driver and the PyTorch release existed (the layout is the one the
    driver branch prints: 79 columns up to R525, 89 for R530-R545, 91 from R550)."""
    g = NV_GPUS[gpu]
    h = params_hash(driver, gpu, count)
    rows = [
        GpuRow(
            name=g.name,
            bus_id=f"00000000:{BUS_IDS[i]}:00.0",
            temp=25 + (h >> (5 * i + 3)) % 9,
            watts=g.idle_w[0] + (h >> (5 * i)) % (g.idle_w[1] - g.idle_w[0] + 1),
            cap=g.cap_w,
            used_mib=0,
            total_mib=g.mem_mib,
            util=0,
            mig="Disabled" if g.mig else "N/A",
        )
        for i in range(count)
    ]
    start = max(ERA[driver].out_by, TORCH_RELEASED[torch])
    when = datetime.datetime(start.year, start.month, start.day) + datetime.timedelta(
        days=14 + h % 120, seconds=(h >> 20) % 86_400
    )
    return nvidia_smi(driver, rows, [], when)


@dataclass(frozen=True)
class AmdGpu:
    """An AMD Instinct GPU as the porting templates name it (ROCm "AMD GPU specifications"
    table: LLVM target, compute units, wavefront size, LDS per CU)."""

    slug: str  # hardware_db slug
    arch: str
    target: str
    cus: int
    wavefront: int
    lds_kib: int


AMD_GPUS: dict[str, AmdGpu] = {
    "mi250x": AmdGpu("mi250x", "CDNA2", "gfx90a", 220, 64, 64),
    "mi300x": AmdGpu("mi300x", "CDNA3", "gfx942", 304, 64, 64),
    "mi325x": AmdGpu("mi325x", "CDNA3", "gfx942", 304, 64, 64),
    "mi355x": AmdGpu("mi355x", "CDNA4", "gfx950", 256, 64, 160),
}
AMD_GPU_SLUGS = tuple(AMD_GPUS)


def amd_name(slug: str) -> str:
    """'AMD Instinct MI300X', from the hardware catalog."""
    acc = catalog.accelerator(slug)
    return acc.prose_name
