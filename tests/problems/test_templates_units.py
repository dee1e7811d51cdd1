"""Units family: gb-gib."""

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
    "gb-gib": ({"value", "from_unit", "to_unit"}, {"converted": (None, Kind.NUMERIC)}),
}
OUT_OF_RANGE = {"gb-gib": {"value": 0, "from_unit": "Gb", "to_unit": "GiB/s"}}

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


@pytest.mark.parametrize(
    ("value", "src", "dst", "expected"),
    [
        (80, "GB", "GiB", 74.50580596923828),
        (1, "TiB", "GB", 1099.511627776),
        (81559, "MiB", "GB", 85.520809984),
        (128, "KiB", "KB", 131.072),
        (2, "PiB", "PB", 2.251799813685248),
        (1.5, "GB", "B", 1.5e9),
        (3, "TB", "TB", 3),
    ],
)
def test_conversions(value, src, dst, expected):
    part = solve("gb-gib", {"value": value, "from_unit": src, "to_unit": dst})["converted"]
    assert part.unit == dst
    assert math.isclose(part.value, expected, rel_tol=1e-12)


def test_part_unit_follows_to_unit():
    for unit in ("B", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB", "PB", "PiB"):
        part = solve("gb-gib", {"value": 1, "from_unit": "GiB", "to_unit": unit})["converted"]
        assert part.unit == unit


def test_named_slips():
    t = registry.get("gb-gib")
    p = t.parse_params({"value": 80, "from_unit": "GB", "to_unit": "GiB"})
    by_code = {}
    for m in t.misconceptions(p):
        by_code.setdefault(m.code, []).append(m.value)
    assert by_code["gb-vs-gib"] == [80]  # 80 GB read as 80 GiB
    assert any(math.isclose(v, 80 * 2**30 / 1e9) for v in by_code["unit-scale"])
    assert "80 GB" in t.statement(p)  # a real part sold as "80 GB"
