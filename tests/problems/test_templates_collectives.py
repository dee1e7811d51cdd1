"""Collectives family: allreduce-ring-time, nccl-busbw."""

import math
import random

import pytest

from hardware_db import catalog
from problems.engine import registry
from tests.problems.template_harness import distinct_params, slips, solve

SLUGS = ["allreduce-ring-time", "nccl-busbw"]
SEEDS = range(300)


@pytest.mark.parametrize("slug", SLUGS)
def test_the_ring_size_is_the_ranks_hint(slug):
    t = registry.get(slug)
    p = t.generate(random.Random(1))
    assert t.factor_hints(p).ranks == p.n_gpus


@pytest.mark.parametrize("slug", SLUGS)
def test_generators_vary(slug):
    assert distinct_params(slug, SEEDS) > 250


def test_generated_variants_are_realistic():
    per_direction = {round(li.bw_bytes_per_s_per_direction / 1e9, 2) for li in catalog.links()}
    t = registry.get("allreduce-ring-time")
    for seed in SEEDS:
        p = t.generate(random.Random(seed))
        assert p.bus_bw_gbps in per_direction  # a real link's per-direction figure
        assert 0.05 <= t.solve(p)["time"].value < 1e5  # stated in a readable unit
    t = registry.get("nccl-busbw")
    collectives = set()
    for seed in SEEDS:
        p = t.generate(random.Random(seed))
        collectives.add(p.collective)
        busbw = t.solve(p)["busbw"].value
        assert busbw < 0.95 * max(per_direction)  # below the fastest link's peak
    assert collectives == {
        "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall"
    }  # fmt: skip


# --- hand-checked values ---------------------------------------------------------------


def ring(**over):
    params = {
        "message_bytes": 2**30,
        "n_gpus": 8,
        "bus_bw_gbps": 450,
        "latency_us": 0,
        "unit": "ms",
    }
    params.update(over)
    return solve("allreduce-ring-time", params)["time"].value


def test_ring_spot_values():
    # 1 GiB over NVLink 4 on 8 GPUs: 2 x 7/8 x 2^30 B / 450e9 B/s = 4.1757 ms.
    assert math.isclose(ring(), 1.75 * 2**30 / 450e9 * 1e3, rel_tol=1e-12)
    assert math.isclose(ring(unit="us"), 1000 * ring(), rel_tol=1e-12)
    assert math.isclose(ring(unit="s"), ring() / 1000, rel_tol=1e-12)
    # Latency term alone: 2(n-1) steps of alpha.
    assert math.isclose(ring(message_bytes=1e-300, latency_us=5, unit="us"), 70, rel_tol=1e-9)
    # pub-021 by hand: 30 x 5 us + 1.875 x 256e6 / 200e9 s = 0.15 ms + 2.4 ms.
    assert math.isclose(
        ring(message_bytes=256e6, n_gpus=16, bus_bw_gbps=200, latency_us=5), 2.55, rel_tol=1e-12
    )
    assert ring(n_gpus=1, latency_us=3) == 0


def bus(collective, n, size=1e9, time_us=1e4):
    params = {"collective": collective, "n_gpus": n, "size_bytes": size, "time_us": time_us}
    parts = solve("nccl-busbw", params)
    return parts["algbw"].value, parts["busbw"].value


@pytest.mark.parametrize(
    ("collective", "n", "busbw"),
    [
        ("all_reduce", 8, 175.0),
        ("all_gather", 8, 87.5),
        ("reduce_scatter", 4, 75.0),
        ("alltoall", 16, 93.75),
        ("broadcast", 64, 100.0),
        ("reduce", 2, 100.0),
        ("all_reduce", 1, 0.0),
    ],
)
def test_busbw_factors_follow_nccl_tests(collective, n, busbw):
    algbw, got = bus(collective, n)  # 1e9 B in 10 ms = 100 GB/s
    assert math.isclose(algbw, 100.0, rel_tol=1e-12)
    assert math.isclose(got, busbw, rel_tol=1e-12, abs_tol=1e-12)


def test_named_misconceptions():
    named = slips(
        "nccl-busbw", {"collective": "all_reduce", "n_gpus": 8, "size_bytes": 1e9, "time_us": 1e4}
    )
    assert math.isclose(named[("allreduce-factor", "busbw")], 87.5)
    assert math.isclose(named[("busbw-factor-omitted", "busbw")], 100)
    assert math.isclose(named[("gb-vs-gib", "algbw")], 1e11 / 2**30)
    params = {
        "message_bytes": 2**30,
        "n_gpus": 8,
        "bus_bw_gbps": 450,
        "latency_us": 2,
        "unit": "ms",
    }
    named = slips("allreduce-ring-time", params)
    right = solve("allreduce-ring-time", params)["time"].value
    assert math.isclose(named[("bits-vs-bytes", "time")], 0.028 + 8 * (right - 0.028))
    assert math.isclose(named[("allreduce-factor", "time")], 0.028 + 2**30 / 450e9 * 1e3)
