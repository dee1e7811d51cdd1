"""Collectives family: allreduce-ring-time, nccl-busbw."""

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

# slug -> (solve parameter names, {part: fixed unit, or None when it follows `unit`})
CONTRACT = {
    "allreduce-ring-time": (
        {"message_bytes", "n_gpus", "bus_bw_gbps", "latency_us", "unit"},
        {"time": None},
    ),
    "nccl-busbw": (
        {"collective", "n_gpus", "size_bytes", "time_us"},
        {"algbw": "GB/s", "busbw": "GB/s"},
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
    assert t.factor_hints(p).ranks == p.n_gpus


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
    assert len(seen) > 250


def test_generated_variants_are_realistic():
    from hardware_db import catalog

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


@pytest.mark.parametrize("slug", SLUGS)
def test_engine_qa_sweep(slug):
    """The project's own sweep: exact answers grade correct (also in another unit) and
    every misconception grades to its own code."""
    report = check_all(variants=50, slugs=[slug])
    assert report.variants == 50
    assert report.failures == []


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
    t = registry.get("nccl-busbw")
    p = t.parse_params({"collective": "all_reduce", "n_gpus": 8, "size_bytes": 1e9, "time_us": 1e4})
    codes = {(m.code, m.part): m.value for m in t.misconceptions(p)}
    assert math.isclose(codes[("allreduce-factor", "busbw")], 87.5)
    assert math.isclose(codes[("busbw-factor-omitted", "busbw")], 100)
    assert math.isclose(codes[("gb-vs-gib", "algbw")], 1e11 / 2**30)
    t = registry.get("allreduce-ring-time")
    p = t.parse_params(
        {"message_bytes": 2**30, "n_gpus": 8, "bus_bw_gbps": 450, "latency_us": 2, "unit": "ms"}
    )
    codes = {m.code: m.value for m in t.misconceptions(p)}
    right = t.solve(p)["time"].value
    assert math.isclose(codes["bits-vs-bytes"], 0.028 + 8 * (right - 0.028))
    assert math.isclose(codes["allreduce-factor"], 0.028 + 2**30 / 450e9 * 1e3)


# --- bad parameters --------------------------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_extra_and_missing_params_are_refused(slug):
    t = registry.get(slug)
    good = t.generate(random.Random(0)).model_dump()
    with pytest.raises(pydantic.ValidationError):
        t.parse_params({**good, "link": "nvlink-4"})
    for name in good:
        with pytest.raises(pydantic.ValidationError):
            t.parse_params({k: v for k, v in good.items() if k != name})


@pytest.mark.parametrize(
    ("slug", "name", "value"),
    [
        ("allreduce-ring-time", "n_gpus", 0),
        ("allreduce-ring-time", "message_bytes", 0),
        ("allreduce-ring-time", "bus_bw_gbps", -1),
        ("allreduce-ring-time", "latency_us", -1),
        ("allreduce-ring-time", "unit", "min"),
        ("nccl-busbw", "collective", "allreduce"),
        ("nccl-busbw", "collective", "all-reduce"),
        ("nccl-busbw", "time_us", 0),
        ("nccl-busbw", "size_bytes", -8),
        ("nccl-busbw", "n_gpus", 0),
    ],
)
def test_out_of_range_is_refused(slug, name, value):
    t = registry.get(slug)
    good = t.generate(random.Random(0)).model_dump()
    with pytest.raises(pydantic.ValidationError):
        t.parse_params({**good, name: value})
