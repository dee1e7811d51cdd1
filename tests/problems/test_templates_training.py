"""Training family: training-time."""

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
    "training-time": (
        {"n_params", "n_tokens", "n_gpus", "peak_tflops", "mfu"},
        {"days": ("d", Kind.NUMERIC), "gpu_hours": ("GPU-h", Kind.NUMERIC)},
    ),
}
OUT_OF_RANGE = {
    "training-time": {"n_params": 0, "n_tokens": -1, "n_gpus": 0, "peak_tflops": 0, "mfu": 1.01},
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


def test_training_round_numbers():
    # 6 x 1e10 x 1e12 = 6e22 FLOP at 100 x 1e15 x 0.5 = 5e16 FLOP/s: 1.2e6 s.
    parts = solve(
        "training-time",
        {"n_params": 1e10, "n_tokens": 1e12, "n_gpus": 100, "peak_tflops": 1000, "mfu": 0.5},
    )
    assert math.isclose(parts["days"].value, 1.2e6 / 86400)
    assert math.isclose(parts["gpu_hours"].value, 1.2e6 / 3600 * 100)


def test_llama3_405b_scale():
    # Llama 3.1 405B: 15.6T tokens on 16,384 H100 at 41% MFU, about 70 days of pure compute.
    parts = solve(
        "training-time",
        {
            "n_params": 405853388800,
            "n_tokens": 15.6e12,
            "n_gpus": 16384,
            "peak_tflops": 989.4,
            "mfu": 0.41,
        },
    )
    assert 60 < parts["days"].value < 80
    assert math.isclose(parts["gpu_hours"].value, parts["days"].value * 24 * 16384, rel_tol=1e-12)


def test_moe_uses_active_parameters_and_names_the_slip():
    from hardware_db import catalog

    mixtral = catalog.model("mixtral-8x7b")
    t = registry.get("training-time")
    p = t.parse_params(
        {
            "n_params": float(mixtral.active_params),
            "n_tokens": 2e12,
            "n_gpus": 1024,
            "peak_tflops": 989.4,
            "mfu": 0.4,
        }
    )
    assert "mixture-of-experts" in t.statement(p)
    days = t.solve(p)["days"].value
    slip = next(m for m in t.misconceptions(p) if m.code == "moe-total-params" and m.part == "days")
    assert math.isclose(slip.value / days, mixtral.total_params / mixtral.active_params)
    assert t.factor_hints(p).parallelism == 1024
