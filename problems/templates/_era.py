"""The era table: every NVIDIA driver a template prints, the CUDA version its
`nvidia-smi` reports, and which driver an HGX fleet of each GPU generation runs in a
given year. One table, so a statement dated 2024 never shows a 2026 driver, and an H100
node never runs a different driver in one template than in another of the same year.

Sources: the CUDA version a driver reports is the toolkit it shipped with (NVIDIA CUDA
Toolkit Release Notes, Table 3, "CUDA Toolkit and Corresponding Driver Versions"; the
update rows name 525.85.12, 535.104.05, 550.54.15, 570.124.06 and 575.57.08), read in the
`nvidia-smi` banners of public captures: 525.105.17 / 12.0 and 510.73.08 / 11.6
(spec/tool-output/nvidia-smi-q), 535.161.08 / 12.2 and 550.90.07 / 12.4
(spec/tool-output/nvidia-smi), 535.183.01 (spec/tool-output/xid), 570.124.06 / 12.8 and
580.95.05 / 13.0 (public `nvidia-smi` captures of 2025). `built` is the stamp the kernel
module prints when it loads (`NVRM: loading NVIDIA UNIX x86_64 Kernel Module  <version>
<built>`), as public `/proc/driver/nvidia/version` captures show it, where one was found;
`out_by` is the first day of the month after the version's release (NVIDIA's driver
archive), a date by which any node could run it.

The fleet rows are this course's fleet, one driver per generation and year, each a
release that was current for datacenter GPUs in that window: R550 from mid 2024
(550.90.07 was published at the end of May 2024), R570 in 2025 (the first branch with
Blackwell B200 support), R580 from 2026 (580.95.05 was built on 23 September 2025).
"""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Driver:
    version: str
    cuda: str  # what its nvidia-smi banner reports
    out_by: datetime.date  # published by then: the first day of the month after release
    built: str | None = None  # the kernel module's build stamp, where a capture shows it

    @property
    def branch(self) -> int:
        return int(self.version.split(".")[0])


def _d(year: int, month: int) -> datetime.date:
    return datetime.date(year, month, 1)


DRIVERS: dict[str, Driver] = {
    d.version: d
    for d in (
        Driver("470.82.01", "11.4", _d(2021, 11)),
        Driver("510.47.03", "11.6", _d(2022, 3)),
        Driver("510.73.08", "11.6", _d(2022, 6)),
        Driver("515.48.07", "11.7", _d(2022, 6)),
        Driver("520.61.05", "11.8", _d(2022, 11)),
        Driver("525.85.12", "12.0", _d(2023, 2)),
        Driver("525.105.17", "12.0", _d(2023, 4), "Tue Mar 28 18:02:59 UTC 2023"),
        Driver("535.104.05", "12.2", _d(2023, 9)),
        Driver("535.161.08", "12.2", _d(2024, 3)),
        Driver("535.183.01", "12.2", _d(2024, 7), "Sun May 12 19:39:15 UTC 2024"),
        Driver("545.23.08", "12.3", _d(2023, 11)),
        Driver("550.54.15", "12.4", _d(2024, 4)),
        Driver("550.90.07", "12.4", _d(2024, 7), "Fri May 31 09:35:42 UTC 2024"),
        Driver("555.42.06", "12.5", _d(2024, 7)),
        Driver("560.35.03", "12.6", _d(2024, 9)),
        Driver("570.124.06", "12.8", _d(2025, 4)),
        Driver("575.57.08", "12.9", _d(2025, 7)),
        Driver("580.65.06", "13.0", _d(2025, 9)),
        Driver("580.95.05", "13.0", _d(2025, 10), "Tue Sep 23 10:11:16 UTC 2025"),
    )
}

GENERATION = {  # catalog slug -> NVIDIA generation
    "a100-sxm-80gb": "ampere",
    "h100-sxm": "hopper",
    "h200": "hopper",
    "b200": "blackwell",
}

# year -> (first day, last day the fleet runs that year's driver, {generation: driver})
FLEET: dict[int, tuple[datetime.date, datetime.date, dict[str, str]]] = {
    2024: (
        datetime.date(2024, 7, 1),
        datetime.date(2024, 12, 31),
        {"ampere": "550.90.07", "hopper": "550.90.07"},
    ),
    2025: (
        datetime.date(2025, 4, 1),
        datetime.date(2025, 12, 31),
        {"ampere": "570.124.06", "hopper": "570.124.06", "blackwell": "570.124.06"},
    ),
    2026: (
        datetime.date(2026, 1, 5),
        datetime.date(2026, 6, 30),
        {"ampere": "580.95.05", "hopper": "580.95.05", "blackwell": "580.95.05"},
    ),
}


def fleet_years(slug: str) -> tuple[int, ...]:
    """The years in which the fleet has this part."""
    gen = GENERATION[slug]
    return tuple(year for year, (_, _, by_gen) in FLEET.items() if gen in by_gen)


def fleet_driver(slug: str, year: int) -> Driver:
    """The driver an HGX node of this part runs in that year (KeyError if none)."""
    return DRIVERS[FLEET[year][2][GENERATION[slug]]]


def fleet_moment(rng: random.Random, year: int) -> datetime.datetime:
    """A time inside that year's window, to the second."""
    first, last, _ = FLEET[year]
    day = first + datetime.timedelta(days=rng.randint(0, (last - first).days))
    return datetime.datetime(day.year, day.month, day.day) + datetime.timedelta(
        seconds=rng.randint(0, 86_399)
    )
