"""Serving family: decode-tpot-floor, prefill-time, spec-decode, littles-law."""

import math
import random
import re
import xml.etree.ElementTree as ET

import pydantic
import pytest

from problems.engine import registry
from problems.engine.grading import grade_part
from problems.engine.render import render_markdown
from problems.engine.template import Kind
from problems.engine.tolerance import Exact
from tests.problems.conftest import load_cases

CONTRACT = {
    "decode-tpot-floor": (
        {"n_params", "weight_dtype", "mem_bw_tbps", "n_gpus"},
        {"tpot": ("ms", Kind.NUMERIC), "tokens_per_s": ("tok/s", Kind.NUMERIC)},
    ),
    "prefill-time": (
        {"n_params", "prompt_tokens", "peak_tflops", "n_gpus", "mfu"},
        {"ttft": ("ms", Kind.NUMERIC)},
    ),
    "spec-decode": (
        {"alpha", "gamma", "draft_cost"},
        {"tokens_per_step": ("", Kind.NUMERIC), "speedup": ("", Kind.NUMERIC)},
    ),
    "littles-law": (
        {"arrival_rps", "latency_s", "per_replica_concurrency"},
        {"concurrency": ("", Kind.NUMERIC), "replicas": ("", Kind.INTEGER)},
    ),
}
OUT_OF_RANGE = {
    "decode-tpot-floor": {"n_params": 0, "weight_dtype": "fp7", "mem_bw_tbps": 0, "n_gpus": 0},
    "prefill-time": {"prompt_tokens": 0, "peak_tflops": -1, "n_gpus": 0, "mfu": 1.5},
    "spec-decode": {"alpha": 1.1, "gamma": 0, "draft_cost": -0.1},
    "littles-law": {"arrival_rps": 0, "latency_s": -1, "per_replica_concurrency": 0},
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
        ET.fromstring(math_el)  # noqa: S314 - our own rendered MathML
    assert "$" not in re.sub(r"<math\b.*?</math>", "", html, flags=re.S)


def near(a: float, b: float) -> bool:
    return abs(a - b) <= 0.01 * max(abs(a), abs(b))


# --- the contract ----------------------------------------------------------------------------


def test_every_slug_has_reference_cases():
    assert {c["slug"] for c in CASES} == set(CONTRACT)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_reference_case(case):
    part = solve(case["slug"], case["params"])[case["part"]]
    assert part.unit == case["unit"]
    assert part.kind == case["kind"]
    if case["kind"] == "numeric":
        assert math.isclose(part.value, case["value"], rel_tol=1e-9)
    else:
        assert part.value == case["value"]
        assert type(part.value) is type(case["value"])


@pytest.mark.parametrize("slug", SLUGS)
def test_params_and_parts_match_the_contract(slug):
    t = registry.get(slug)
    names, parts = CONTRACT[slug]
    assert set(t.Params.model_fields) == names
    solved = t.solve(t.generate(random.Random(1)))
    assert set(solved) == set(parts)
    for name, (unit, kind) in parts.items():
        if unit is not None:
            assert solved[name].unit == unit
        assert solved[name].kind == kind
        if kind != Kind.NUMERIC:
            assert isinstance(solved[name].tolerance, Exact)
    assert t.lessons and set(t.lessons) <= LESSONS
    assert t.skills and all(KEBAB.match(s) for s in t.skills)


# --- 300 generated variants per template ---------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_generated_variants(slug):
    t = registry.get(slug)
    codes = set()
    for seed in SEEDS:
        p = t.generate(random.Random(seed))
        assert t.parse_params(p.model_dump()) == p, seed
        assert t.generate(random.Random(seed)) == p, seed
        parts = t.solve(p)
        for part in parts.values():
            if part.kind == Kind.NUMERIC:
                assert isinstance(part.value, float) and math.isfinite(part.value), seed
                assert part.value > 0, seed
            elif part.kind == Kind.INTEGER:
                assert type(part.value) is int and part.value >= 0, seed
            else:
                assert part.value in part.choices, seed
        assert_renders(t.statement(p))
        assert_renders(t.solution(p))
        hints = t.factor_hints(p)
        for m in t.misconceptions(p):
            assert KEBAB.match(m.code) and m.feedback, (seed, m)
            part = parts[m.part]
            codes.add(m.code)
            if part.kind == Kind.CHOICE:
                assert m.value != part.value and m.value in part.choices, (seed, m)
                continue
            assert math.isfinite(m.value), (seed, m)
            assert not near(m.value, part.value), (seed, m)
            answer = repr(m.value) if part.kind == Kind.NUMERIC else str(int(m.value))
            graded = grade_part(part, answer, misconceptions=t.misconceptions(p), hints=hints)
            assert not graded.correct and graded.misconception == m.code, (seed, m)
    assert len(codes) >= 2


# --- bad parameters ------------------------------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_bad_params_are_refused(slug):
    t = registry.get(slug)
    good = t.generate(random.Random(0)).model_dump()
    with pytest.raises(pydantic.ValidationError):
        t.parse_params({**good, "surprise": 1})
    for name in good:
        with pytest.raises(pydantic.ValidationError):
            t.parse_params({k: v for k, v in good.items() if k != name})
    for name, bad in OUT_OF_RANGE[slug].items():
        with pytest.raises(pydantic.ValidationError):
            t.parse_params({**good, name: bad})


# --- hand-checked values ---------------------------------------------------------------------


def test_decode_llama_70b_bf16_on_four_h100():
    parts = solve(
        "decode-tpot-floor",
        {"n_params": 70553706496, "weight_dtype": "bf16", "mem_bw_tbps": 3.35, "n_gpus": 4},
    )
    # 141.1 GB over 4 x 3.35 TB/s.
    assert math.isclose(parts["tpot"].value, 10.530404, rel_tol=1e-6)
    assert math.isclose(parts["tokens_per_s"].value, 94.963119, rel_tol=1e-6)
    t = registry.get("decode-tpot-floor")
    p = t.parse_params(
        {"n_params": 70553706496, "weight_dtype": "bf16", "mem_bw_tbps": 3.35, "n_gpus": 4}
    )
    assert "Llama 3.1 70B" in t.statement(p) and "H100" in t.statement(p)
    assert t.factor_hints(p).parallelism == 4


def test_prefill_round_numbers():
    parts = solve(
        "prefill-time",
        {"n_params": 8e9, "prompt_tokens": 1000, "peak_tflops": 1000, "n_gpus": 1, "mfu": 0.5},
    )
    assert math.isclose(parts["ttft"].value, 32.0)


def test_spec_decode_hand_values():
    parts = solve("spec-decode", {"alpha": 0.5, "gamma": 2, "draft_cost": 0.25})
    assert math.isclose(parts["tokens_per_step"].value, 1.75)
    assert math.isclose(parts["speedup"].value, 1.75 / 1.5)
    parts = solve("spec-decode", {"alpha": 1, "gamma": 4, "draft_cost": 0})
    assert parts["tokens_per_step"].value == 5 and parts["speedup"].value == 5
    parts = solve("spec-decode", {"alpha": 0, "gamma": 4, "draft_cost": 0.1})
    assert parts["tokens_per_step"].value == 1


def test_spec_decode_names_a_real_pair():
    t = registry.get("spec-decode")
    p = t.parse_params({"alpha": 0.7, "gamma": 4, "draft_cost": 0.1138})
    text = t.statement(p)
    assert "Llama 3.1 8B" in text and "Llama 3.1 70B" in text


def test_littles_law_ceil_is_exact():
    # 0.1 x 30 is 3.0000000000000004 in floats; 3 requests fit in one 3-slot replica.
    parts = solve(
        "littles-law", {"arrival_rps": 0.1, "latency_s": 30, "per_replica_concurrency": 3}
    )
    assert parts["replicas"].value == 1
    assert math.isclose(parts["concurrency"].value, 3.0)
    parts = solve("littles-law", {"arrival_rps": 50, "latency_s": 4, "per_replica_concurrency": 64})
    assert parts["concurrency"].value == 200 and parts["replicas"].value == 4
