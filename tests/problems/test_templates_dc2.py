"""Hand-checked tests for cost-per-mtok, storage-feed-rate and leaf-spine-switches."""

from __future__ import annotations

import math
import random

import pydantic
import pytest

from problems.engine import registry
from problems.templates.economics.cost_per_million_tokens import PRICE_BANDS, gpu_for
from tests.problems.template_harness import distinct_params, slips, solve

SEEDS = range(300)


# --- cost-per-mtok


def test_cost_per_mtok_by_hand():
    # 8 GPUs at 2.50 USD/h = 20 USD/h = 1/180 USD/s; 9,000 tok/s -> 1e6 tokens in 111.1 s.
    params = {"gpu_hour_usd": 2.5, "n_gpus": 8, "tokens_per_s": 9000}
    value = solve("cost-per-mtok", params)["usd_per_mtok"].value
    assert math.isclose(value, 20 / 3600 * 1e6 / 9000, rel_tol=1e-12)
    named = slips("cost-per-mtok", params)
    assert math.isclose(named[("one-gpu-not-replica", "usd_per_mtok")], value / 8)
    assert math.isclose(named[("hour-as-60-seconds", "usd_per_mtok")], value * 60)
    assert math.isclose(named[("per-thousand-tokens", "usd_per_mtok")], value / 1000)


def test_cost_per_mtok_one_gpu_has_no_replica_slip():
    named = slips("cost-per-mtok", {"gpu_hour_usd": 2.5, "n_gpus": 1, "tokens_per_s": 9000})
    assert ("one-gpu-not-replica", "usd_per_mtok") not in named


def test_cost_per_mtok_generator_is_realistic_and_names_its_gpu():
    t = registry.get("cost-per-mtok")
    for seed in SEEDS:
        p = t.generate(random.Random(seed))
        gpu = gpu_for(p)
        assert gpu is not None
        low, high = PRICE_BANDS[gpu]
        assert low <= p.gpu_hour_usd <= high
        assert p.n_gpus in (1, 2, 4, 8)
        assert 300 <= p.tokens_per_s <= 24_000
        assert "GPU" in t.statement(p)
    assert distinct_params("cost-per-mtok", SEEDS) > 100


# --- storage-feed-rate


def test_storage_feed_rate_by_hand():
    # 64 GPUs x 300 images/s x 110 KB = 2,112,000,000 B/s = 2.112 GB/s; x 86,400 s.
    params = {"n_gpus": 64, "samples_per_s_per_gpu": 300, "sample_kb": 110, "unit": "GB/s"}
    parts = solve("storage-feed-rate", params)
    assert math.isclose(parts["read"].value, 2.112, rel_tol=1e-12)
    assert math.isclose(parts["daily"].value, 182.4768, rel_tol=1e-12)
    named = slips("storage-feed-rate", params)
    assert math.isclose(named[("one-gpu-not-job", "read")], 2.112 / 64)
    assert math.isclose(named[("wrong-rate-unit", "read")], 2112)
    assert math.isclose(named[("one-hour-not-day", "daily")], 182.4768 / 24)
    assert math.isclose(named[("tb-vs-tib", "daily")], 182.4768e12 / 2**40)
    assert math.isclose(named[("one-gpu-not-job", "daily")], 182.4768 / 64)


def test_storage_feed_rate_in_mb_per_s():
    params = {"n_gpus": 4096, "samples_per_s_per_gpu": 2.5, "sample_kb": 110, "unit": "MB/s"}
    assert math.isclose(solve("storage-feed-rate", params)["read"].value, 1126.4)


def test_storage_feed_rate_generator_is_realistic():
    t = registry.get("storage-feed-rate")
    for seed in SEEDS:
        p = t.generate(random.Random(seed))
        assert 8 <= p.n_gpus <= 4096 and p.n_gpus % 8 == 0
        assert 16 <= p.sample_kb <= 20_000
        assert "1 KB = 1,000 bytes" in t.statement(p)
    assert distinct_params("storage-feed-rate", SEEDS) > 100


# --- leaf-spine-switches


def test_leaf_spine_by_hand():
    # 1,564 endpoints at 32 a leaf: 48.9 -> 49 leaves; 49 x 32 = 1,568 uplinks / 64 = 24.5 -> 25.
    params = {"n_endpoints": 1564, "radix": 64}
    parts = solve("leaf-spine-switches", params)
    assert (parts["leaves"].value, parts["spines"].value) == (49, 25)
    assert parts["max_endpoints"].value == 2048
    named = slips("leaf-spine-switches", params)
    assert named[("all-ports-down", "leaves")] == 25
    assert ("rounded-down", "leaves") not in named  # 48 of 49 is within 2.5%
    assert named[("uplinks-not-switches", "spines")] == 1568
    assert named[("full-mesh-spines", "spines")] == 32
    assert named[("all-ports-endpoints", "max_endpoints")] == 4096
    assert named[("three-tier-fat-tree", "max_endpoints")] == 65536


def test_leaf_spine_small_fabric_names_rounding_down():
    named = slips("leaf-spine-switches", {"n_endpoints": 335, "radix": 64})
    assert named[("rounded-down", "leaves")] == 10  # 335 / 32 = 10.5 -> 11 leaves


def test_leaf_spine_exact_division_and_full_fabric():
    parts = solve("leaf-spine-switches", {"n_endpoints": 2048, "radix": 64})
    assert (parts["leaves"].value, parts["spines"].value) == (64, 32)


@pytest.mark.parametrize(
    "bad", [{"n_endpoints": 2049, "radix": 64}, {"n_endpoints": 100, "radix": 63}]
)
def test_leaf_spine_refuses_more_than_two_tiers_reach(bad):
    with pytest.raises(pydantic.ValidationError):
        registry.get("leaf-spine-switches").parse_params(bad)


def test_leaf_spine_generator_is_realistic():
    t = registry.get("leaf-spine-switches")
    for seed in SEEDS:
        p = t.generate(random.Random(seed))
        assert p.radix in (40, 64, 128)
        assert p.n_endpoints % 8 == 0 and p.n_endpoints <= p.radix**2 // 2
        assert solve("leaf-spine-switches", p.model_dump())["leaves"].value >= 2
    assert distinct_params("leaf-spine-switches", SEEDS) > 100
