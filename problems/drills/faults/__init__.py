"""The fault kinds a drill can plant, one module each, by kind (see faults/base.py for
what a module provides)."""

from __future__ import annotations

from types import ModuleType

from problems.drills.faults import (
    device_plugin,
    ecc,
    ib_link,
    kv_cache,
    numa_misbinding,
    nvlink,
    off_bus,
    rack_power,
    slurm_drain,
    thermal,
    volume_full,
)

FAULTS: dict[str, ModuleType] = {
    m.KIND: m
    for m in (
        off_bus,
        ecc,
        thermal,
        slurm_drain,
        ib_link,
        kv_cache,
        device_plugin,
        volume_full,
        nvlink,
        rack_power,
        numa_misbinding,
    )
}
