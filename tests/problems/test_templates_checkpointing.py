"""Checkpointing family: checkpoint-young, checkpoint-daly, checkpoint-write-time,
failure-goodput."""

import math
import random
import re
import xml.etree.ElementTree as ET

import pydantic
import pytest

from problems.engine import registry
from problems.engine.check import check_all
from problems.engine.render import render_markdown
from tests.problems.conftest import load_cases

INTERVAL = {"checkpoint_s", "node_mtbf_h", "n_nodes", "unit"}
# slug -> (solve parameter names, {part: fixed unit, or None when it follows `unit`})
CONTRACT = {
    "checkpoint-young": (INTERVAL, {"interval": None, "system_mtbf": "h"}),
    "checkpoint-daly": (INTERVAL, {"interval": None}),
    "checkpoint-write-time": (
        {"n_params", "state", "storage_bw_gbps"},
        {"size": "GB", "write_time": "s"},
    ),
    "failure-goodput": (
        {"interval_min", "checkpoint_min", "restart_min", "system_mtbf_h"},
        {"goodput": "%"},
    ),
}
SLUGS = sorted(CONTRACT)
SEEDS = range(300)
LESSONS = {
    "what-ai-workloads-need", "how-an-llm-writes-text", "inside-the-transformer", "inside-a-gpu",
    "the-accelerator-software-stack", "gpu-memory-math", "anatomy-of-a-gpu-server",
    "prefill-decode-and-the-cost-of-a-token", "distributed-training-data-parallel",
    "model-parallelism", "ai-networking-infiniband-roce", "storage-data-pipelines",
    "gpus-on-kubernetes", "scheduling-gpu-clusters", "serving-models", "the-accelerator-landscape",
    "ray-distributed-ai-frameworks", "the-kv-cache", "batching-for-llm-inference", "quantization",
    "llm-inference-at-scale", "gpu-monitoring-observability", "bring-up-validation",
    "troubleshooting-gpu-clusters", "power-cooling-the-ai-data-center", "reliability-cost-at-scale",
    "speculative-decoding", "gpu-programming-with-cuda", "rocm-hip-on-amd", "triton-kernels",
}  # fmt: skip
KEBAB = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
CASES = [c for c in load_cases() if c["slug"] in CONTRACT]


def solve(slug, params):
    t = registry.get(slug)
    return t.solve(t.parse_params(params))


def assert_renders(text: str) -> None:
    html = render_markdown(text)
    for math_el in re.findall(r"<math\b.*?</math>", html, re.S):
        ET.fromstring(math_el)  # noqa: S314 (our own MathML, not untrusted input)
    assert "$" not in re.sub(r"<math\b.*?</math>", "", html, flags=re.S)


# --- the contract ----------------------------------------------------------------------


def test_every_slug_has_reference_cases():
    assert {c["slug"] for c in CASES} == set(CONTRACT)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_reference_case(case):
    part = solve(case["slug"], case["params"])[case["part"]]
    assert part.unit == case["unit"]
    assert math.isclose(part.value, case["value"], rel_tol=1e-9)


@pytest.mark.parametrize("slug", SLUGS)
def test_params_and_parts_match_the_contract(slug):
    t = registry.get(slug)
    names, parts = CONTRACT[slug]
    assert set(t.Params.model_fields) == names
    p = t.generate(random.Random(1))
    solved = t.solve(p)
    assert set(solved) == set(parts)
    for name, unit in parts.items():
        assert solved[name].unit == (unit if unit is not None else p.unit)
    assert set(t.lessons) <= LESSONS and t.lessons
    assert all(KEBAB.match(s) for s in t.skills) and t.skills
    if "n_nodes" in names:
        assert t.factor_hints(p).parallelism == p.n_nodes


# --- 300 generated variants per template ---------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_generated_variants(slug):
    t = registry.get(slug)
    seen = set()
    for seed in SEEDS:
        p = t.generate(random.Random(seed))
        assert t.generate(random.Random(seed)) == p, seed
        assert t.parse_params(p.model_dump()) == p
        seen.add(tuple(sorted(p.model_dump().items())))
        parts = t.solve(p)
        for part in parts.values():
            assert math.isfinite(part.value) and part.value > 0
        assert_renders(t.statement(p))
        assert_renders(t.solution(p))
        codes, taken = set(), {}
        for m in t.misconceptions(p):
            assert KEBAB.match(m.code) and m.feedback
            right = parts[m.part].value
            assert abs(m.value - right) > 0.01 * abs(right), (seed, m)
            for other in taken.get(m.part, []):  # the grader names the first match
                assert abs(m.value - other) > 0.01 * max(abs(m.value), abs(other)), (seed, m)
            taken.setdefault(m.part, []).append(m.value)
            codes.add(m.code)
        assert len(codes) >= 2, (seed, codes)
    assert len(seen) > 100


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


@pytest.mark.parametrize("slug", SLUGS)
def test_engine_qa_sweep(slug):
    """The project's own sweep: exact answers grade correct (also in another unit) and
    every misconception grades to its own code."""
    report = check_all(variants=50, slugs=[slug])
    assert report.variants == 50
    assert report.failures == []


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
    t = registry.get("failure-goodput")
    p = t.parse_params(
        {"interval_min": 60, "checkpoint_min": 2, "restart_min": 30, "system_mtbf_h": 24}
    )
    codes = {m.code: m.value for m in t.misconceptions(p)}
    assert math.isclose(codes["full-interval-lost"], 100 * (1 - 2 / 60 - 90 / 1440))
    assert math.isclose(codes["restart-ignored"], 100 * (1 - 2 / 60 - 30 / 1440))
    assert math.isclose(codes["fraction-not-percent"], 0.925)
    assert math.isclose(codes["waste-not-goodput"], 7.5)
    t = registry.get("checkpoint-young")
    p = t.parse_params({"checkpoint_s": 300, "node_mtbf_h": 24, "n_nodes": 8, "unit": "min"})
    codes = {(m.code, m.part): m.value for m in t.misconceptions(p)}
    assert math.isclose(codes[("node-mtbf-not-divided", "interval")], 120)
    assert codes[("node-mtbf-not-divided", "system_mtbf")] == 24


# --- bad parameters --------------------------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_extra_and_missing_params_are_refused(slug):
    t = registry.get(slug)
    good = t.generate(random.Random(0)).model_dump()
    with pytest.raises(pydantic.ValidationError):
        t.parse_params({**good, "gpus_per_node": 8})
    for name in good:
        with pytest.raises(pydantic.ValidationError):
            t.parse_params({k: v for k, v in good.items() if k != name})


@pytest.mark.parametrize(
    ("slug", "name", "value"),
    [
        ("checkpoint-young", "checkpoint_s", 0),
        ("checkpoint-young", "n_nodes", 0),
        ("checkpoint-young", "unit", "s"),
        ("checkpoint-daly", "node_mtbf_h", -5),
        ("checkpoint-write-time", "state", "optimizer"),
        ("checkpoint-write-time", "storage_bw_gbps", 0),
        ("failure-goodput", "interval_min", 0),
        ("failure-goodput", "restart_min", -1),
        ("failure-goodput", "system_mtbf_h", 0),
    ],
)
def test_out_of_range_is_refused(slug, name, value):
    t = registry.get(slug)
    good = t.generate(random.Random(0)).model_dump()
    with pytest.raises(pydantic.ValidationError):
        t.parse_params({**good, name: value})
