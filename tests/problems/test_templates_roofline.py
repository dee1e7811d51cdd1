"""Roofline family: roofline-ridge, roofline-attainable."""

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
    "roofline-ridge": ({"peak_tflops", "mem_bw_tbps"}, {"ridge": ("FLOP/B", Kind.NUMERIC)}),
    "roofline-attainable": (
        {"peak_tflops", "mem_bw_tbps", "flops", "bytes"},
        {
            "intensity": ("FLOP/B", Kind.NUMERIC),
            "attainable": ("TFLOP/s", Kind.NUMERIC),
            "bound": ("", Kind.CHOICE),
        },
    ),
}
OUT_OF_RANGE = {
    "roofline-ridge": {"peak_tflops": 0, "mem_bw_tbps": -3.35},
    "roofline-attainable": {"peak_tflops": -1, "mem_bw_tbps": 0, "flops": 0, "bytes": -1},
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


def test_ridge_h100_uses_the_dense_peak():
    t = registry.get("roofline-ridge")
    p = t.parse_params({"peak_tflops": 989.4, "mem_bw_tbps": 3.35})
    assert math.isclose(t.solve(p)["ridge"].value, 295.3432835820896, rel_tol=1e-12)
    assert "H100 SXM5" in t.statement(p) and "1,979" in t.statement(p)
    sparse = next(m for m in t.misconceptions(p) if m.code == "sparse-peak")
    assert math.isclose(sparse.value, 1979 / 3.35, rel_tol=1e-9)


def test_generated_peaks_are_dense_figures():
    from hardware_db import catalog

    dense = {round(v / 1e12, 6) for a in catalog.accelerators() for v in a.dense_flops.values()}
    t = registry.get("roofline-ridge")
    for seed in range(100):
        assert t.generate(random.Random(seed)).peak_tflops in dense


def _attain(peak, bw, flops, moved):
    return solve(
        "roofline-attainable",
        {"peak_tflops": peak, "mem_bw_tbps": bw, "flops": flops, "bytes": moved},
    )


def test_attainable_gemv_is_memory_bound():
    parts = _attain(989.4, 3.35, 2 * 8192 * 8192, 2 * (8192 + 8192 * 8192 + 8192))
    assert parts["bound"].value == "memory"
    assert math.isclose(parts["intensity"].value, 0.999756, rel_tol=1e-5)
    assert math.isclose(parts["attainable"].value, parts["intensity"].value * 3.35)


def test_attainable_at_the_ridge_is_compute_bound():
    parts = _attain(1000, 2, 500, 1)
    assert parts["bound"].value == "compute" and parts["attainable"].value == 1000


def test_bound_is_decided_on_exact_decimals():
    # In floats 0.3 / 0.1 = 2.9999999999999996 < 3; the decimals say I equals the ridge.
    parts = _attain(3, 1, 0.3, 0.1)
    assert parts["bound"].value == "compute"
    parts = _attain(3, 1, 0.29, 0.1)
    assert parts["bound"].value == "memory"
