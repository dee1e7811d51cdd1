"""The era table: one driver per generation and fleet year, each published before the
year's window opens, and every driver a template prints taken from it."""

from __future__ import annotations

import re

from problems.engine import registry
from problems.engine.variants import Variant
from problems.templates._era import DRIVERS, FLEET, GENERATION, fleet_driver, fleet_years

PRINTING = ("nvidia-smi-triage", "cuda-driver-compat", "gpu-memory-errors", "xid-triage")


def test_each_fleet_year_runs_a_driver_already_published():
    for year, (first, last, by_gen) in FLEET.items():
        assert first.year == last.year == year and first <= last
        for version in by_gen.values():
            assert DRIVERS[version].out_by <= first, (year, version)


def test_blackwell_runs_only_from_a_branch_that_supports_it():
    for year in fleet_years("b200"):
        assert fleet_driver("b200", year).branch >= 570
    assert set(GENERATION.values()) == {"ampere", "hopper", "blackwell"}


def test_every_printed_driver_and_cuda_pair_comes_from_the_table():
    shown = set()
    for slug in PRINTING:
        registry.get(slug)
        for seed in range(40):
            text = Variant.from_seed(slug, seed).statement_markdown()
            for driver, cuda in re.findall(
                r"Driver Version: (\S+)\s+CUDA Version: (\S+)", text
            ) + re.findall(r"Driver Version\s+: (\S+)\nCUDA Version\s+: (\S+)", text):
                assert DRIVERS[driver].cuda == cuda, (slug, seed)
                shown.add(driver)
            for driver in re.findall(r"Kernel Module  (\S+)  ", text):
                assert driver in DRIVERS, (slug, seed)
                shown.add(driver)
    assert len(shown) >= 4
