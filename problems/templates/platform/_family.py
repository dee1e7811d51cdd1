"""What the platform templates share: month and year lengths, the servers and the price
assumptions the cost templates state, and the MIG profile tables of the GPUs that
support MIG.

Prices are teaching assumptions, stated in every statement as such: purchase prices of
the order that 8-GPU NVIDIA servers sell for, and on-demand rental bands of the order
clouds list per GPU-hour. The MIG tables are NVIDIA's, as published in the MIG user guide
(docs.nvidia.com/datacenter/tesla/mig-user-guide, "Supported MIG Profiles") and in the
default mig-parted configuration (github.com/NVIDIA/mig-parted,
deployments/systemd/config-default.yaml), media-extension profiles (+me) left out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hardware_db import catalog

HOURS_PER_YEAR = 8760
HOURS_PER_MONTH = 730  # 8,760 / 12, the usual billing convention

# catalog server slug -> (low, high) purchase price in USD (assumed band)
CAPEX_BANDS = {
    "dgx-a100": (150_000, 200_000),
    "dgx-h100": (250_000, 400_000),
    "dgx-b200": (400_000, 550_000),
}
# catalog accelerator slug -> (low, high) on-demand USD per GPU-hour (assumed band)
RENT_BANDS = {
    "a100-sxm-80gb": (1.2, 2.2),
    "h100-sxm": (2.0, 4.0),
    "h200": (3.0, 5.0),
    "b200": (4.0, 7.0),
}


def priced_servers() -> list[catalog.Server]:
    """Catalog 8-GPU servers with a published system power and an assumed price."""
    return [s for s in catalog.servers() if s.slug in CAPEX_BANDS and s.system_power_watts]


def server_kw_of(server: catalog.Server) -> float:
    return round(server.system_power_watts / 1000, 6)


def server_with_kw(server_kw: float, gpus: int) -> catalog.Server | None:
    """The priced server with this rating and GPU count, or None."""
    return next(
        (
            s
            for s in priced_servers()
            if math.isclose(server_kw_of(s), server_kw, rel_tol=1e-9) and s.n_accelerators == gpus
        ),
        None,
    )


def gpu_name(acc: catalog.Accelerator) -> str:
    """The part's name without the catalog's note: "B200", not "B200 (HGX B200, per GPU)"."""
    return acc.short_name


def usd(x: float) -> str:
    """A USD amount for prose: whole dollars with separators, cents below 100."""
    if abs(x) >= 100:
        return f"{round(x):,}"
    return f"{x:,.2f}"


# --- MIG -----------------------------------------------------------------------------------

COMPUTE_SLICES = 7
MEMORY_SLICES = 8


@dataclass(frozen=True)
class MigProfile:
    name: str  # "2g.20gb"
    compute: int  # compute slices (the "g" number)
    memory: int  # memory slices of 1/8 of the GPU each
    per_gpu: int  # instances of this profile one GPU holds (NVIDIA's table)

    @property
    def memory_gb(self) -> int:
        return int(self.name.split(".")[1].removesuffix("gb"))


def _profiles(gb: tuple[int, int, int, int, int, int]) -> tuple[MigProfile, ...]:
    """The six profiles every 7-slice GPU offers, from their memory sizes in GB."""
    shapes = ((1, 1, 7), (1, 2, 4), (2, 2, 3), (3, 4, 2), (4, 4, 1), (7, 8, 1))
    return tuple(
        MigProfile(f"{g}g.{size}gb", g, m, n) for (g, m, n), size in zip(shapes, gb, strict=True)
    )


# catalog accelerator slug -> its MIG profiles
MIG_PROFILES: dict[str, tuple[MigProfile, ...]] = {
    "a100-sxm-80gb": _profiles((10, 20, 20, 40, 40, 80)),
    "h100-sxm": _profiles((10, 20, 20, 40, 40, 80)),
    "h100-pcie": _profiles((10, 20, 20, 40, 40, 80)),
    "h100-nvl": _profiles((12, 24, 24, 47, 47, 94)),
    "h200": _profiles((18, 35, 35, 71, 71, 141)),
    "b200": _profiles((23, 45, 45, 90, 90, 180)),
}


def mig_profile(accelerator: str, name: str) -> MigProfile | None:
    return next((m for m in MIG_PROFILES.get(accelerator, ()) if m.name == name), None)


def slice_limit(profile: MigProfile) -> int:
    """Instances per GPU from the slice counts: both the 7 compute and the 8 memory slices
    must cover them. Equals NVIDIA's table for every profile listed (the tests check)."""
    return min(COMPUTE_SLICES // profile.compute, MEMORY_SLICES // profile.memory)
