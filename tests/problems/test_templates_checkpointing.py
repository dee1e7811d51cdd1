"""Checkpointing family: checkpoint-young, checkpoint-daly, checkpoint-write-time,
failure-goodput."""

import math
import random

import pytest

from problems.engine import registry
from tests.problems.template_harness import distinct_params, slips, solve

SEEDS = range(300)


@pytest.mark.parametrize("slug", ["checkpoint-young", "checkpoint-daly"])
def test_the_node_count_is_the_parallelism_hint(slug):
    t = registry.get(slug)
    p = t.generate(random.Random(1))
    assert t.factor_hints(p).parallelism == p.n_nodes


@pytest.mark.parametrize(
    "slug", ["checkpoint-young", "checkpoint-daly", "checkpoint-write-time", "failure-goodput"]
)
def test_generators_vary(slug):
    assert distinct_params(slug, SEEDS) > 100


def test_generated_variants_are_realistic():
    for slug in ("checkpoint-young", "checkpoint-daly"):
        t = registry.get(slug)
        for seed in SEEDS:
            p = t.generate(random.Random(seed))
            mtbf_s = p.node_mtbf_h * 3600 / p.n_nodes
            assert p.checkpoint_s <= 0.25 * mtbf_s  # the regime both formulas are meant for
    t = registry.get("failure-goodput")
    values = [t.solve(t.generate(random.Random(s)))["goodput"].value for s in SEEDS]
    assert min(values) >= 50 and max(values) < 100
    assert len({round(v, 6) for v in values}) > 100


# --- hand-checked values ---------------------------------------------------------------


def interval(slug, **over):
    params = {"checkpoint_s": 300, "node_mtbf_h": 24, "n_nodes": 1, "unit": "min"}
    params.update(over)
    return solve(slug, params)["interval"].value


def test_young_spot_values():
    # delta = 5 min, M = 24 h = 1440 min: sqrt(2 x 5 x 1440) = 120 min.
    assert math.isclose(interval("checkpoint-young"), 120, rel_tol=1e-12)
    assert math.isclose(interval("checkpoint-young", unit="h"), 2, rel_tol=1e-12)
    # 24 nodes of 576 h each fail as often as one node of 24 h.
    assert math.isclose(interval("checkpoint-young", node_mtbf_h=576, n_nodes=24), 120)
    parts = solve(
        "checkpoint-young", {"checkpoint_s": 60, "node_mtbf_h": 6300, "n_nodes": 2048, "unit": "h"}
    )
    assert math.isclose(parts["system_mtbf"].value, 6300 / 2048, rel_tol=1e-12)


def test_daly_matches_the_papers_examples():
    # Daly (2006), delta = 5 min: M = 24 h -> ~117 min, 6 h -> ~57 min, 15 min -> ~9.1 min.
    assert round(interval("checkpoint-daly")) == 117
    assert round(interval("checkpoint-daly", node_mtbf_h=6)) == 57
    assert round(interval("checkpoint-daly", node_mtbf_h=0.25), 1) == 9.1
    x = 300 / (2 * 86400)
    expected = math.sqrt(2 * 300 * 86400) * (1 + math.sqrt(x) / 3 + x / 9) - 300
    assert math.isclose(interval("checkpoint-daly", unit="h"), expected / 3600, rel_tol=1e-12)


def test_daly_when_the_checkpoint_outlasts_twice_the_mtbf():
    # delta >= 2M: the interval is M itself (M = 1 h here, delta = 2 h and 3 h).
    assert interval("checkpoint-daly", checkpoint_s=7200, node_mtbf_h=1) == 60
    assert interval("checkpoint-daly", checkpoint_s=10800, node_mtbf_h=1, unit="h") == 1


@pytest.mark.parametrize(
    ("n_params", "state", "bw", "size", "seconds"),
    [
        (70553706496, "full", 2000, 987.751890944, 0.493875945472),  # Llama 3 Tectonic 2 TB/s
        (70553706496, "weights", 10, 141.107412992, 14.1107412992),
        (671026419200, "full", 500, 9394.3698688, 18.7887397376),
    ],
)
def test_write_time_spot_values(n_params, state, bw, size, seconds):
    parts = solve(
        "checkpoint-write-time", {"n_params": n_params, "state": state, "storage_bw_gbps": bw}
    )
    assert math.isclose(parts["size"].value, size, rel_tol=1e-12)
    assert math.isclose(parts["write_time"].value, seconds, rel_tol=1e-12)


def goodput(**over):
    params = {"interval_min": 60, "checkpoint_min": 2, "restart_min": 30, "system_mtbf_h": 24}
    params.update(over)
    return solve("failure-goodput", params)["goodput"].value


def test_goodput_spot_values():
    assert math.isclose(goodput(), 92.5, rel_tol=1e-12)
    # At Young's optimum with no restart cost the waste is sqrt(2 delta / M).
    tau = math.sqrt(2 * 2 * 1440)
    assert math.isclose(
        goodput(interval_min=tau, restart_min=0), 100 * (1 - math.sqrt(4 / 1440)), rel_tol=1e-12
    )
    # More waste than time: the contract's formula, unclamped (1 - 2/600 - (300+30)/60).
    assert math.isclose(goodput(interval_min=600, system_mtbf_h=1), 100 * (1 - 2 / 600 - 5.5))


def test_named_misconceptions():
    named = slips(
        "failure-goodput",
        {"interval_min": 60, "checkpoint_min": 2, "restart_min": 30, "system_mtbf_h": 24},
    )
    assert math.isclose(named[("full-interval-lost", "goodput")], 100 * (1 - 2 / 60 - 90 / 1440))
    assert math.isclose(named[("restart-ignored", "goodput")], 100 * (1 - 2 / 60 - 30 / 1440))
    assert math.isclose(named[("fraction-not-percent", "goodput")], 0.925)
    assert math.isclose(named[("waste-not-goodput", "goodput")], 7.5)
    named = slips(
        "checkpoint-young", {"checkpoint_s": 300, "node_mtbf_h": 24, "n_nodes": 8, "unit": "min"}
    )
    assert math.isclose(named[("node-mtbf-not-divided", "interval")], 120)
    assert named[("node-mtbf-not-divided", "system_mtbf")] == 24
