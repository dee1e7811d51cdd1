"""Power family: rack-power-servers, facility-power."""

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
    "rack-power-servers": (
        {"rack_kw", "server_kw", "power_cap_fraction", "gpus_per_server"},
        {"servers": ("", Kind.INTEGER), "gpus": ("", Kind.INTEGER)},
    ),
    "facility-power": (
        {"n_servers", "server_kw", "pue", "utilization", "price_per_kwh"},
        {
            "facility_kw": ("kW", Kind.NUMERIC),
            "annual_mwh": ("MWh", Kind.NUMERIC),
            "annual_cost": ("USD", Kind.NUMERIC),
        },
    ),
}
OUT_OF_RANGE = {
    "rack-power-servers": {
        "rack_kw": 0,
        "server_kw": -1,
        "power_cap_fraction": 1.2,
        "gpus_per_server": 0,
    },
    "facility-power": {"n_servers": 0, "pue": 0.9, "utilization": 1.5, "price_per_kwh": -0.1},
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


def test_rack_dgx_h100_with_cap():
    # 40 / (10.2 x 0.9) = 4.36 -> 4 servers, 32 GPUs.
    parts = solve(
        "rack-power-servers",
        {"rack_kw": 40, "server_kw": 10.2, "power_cap_fraction": 0.9, "gpus_per_server": 8},
    )
    assert parts["servers"].value == 4 and parts["gpus"].value == 32


def test_rack_floor_is_exact_at_the_boundary():
    # In floats 0.3 / 0.1 is 2.9999999999999996; the decimals say exactly 3.
    parts = solve(
        "rack-power-servers",
        {"rack_kw": 0.3, "server_kw": 0.1, "power_cap_fraction": 1, "gpus_per_server": 4},
    )
    assert parts["servers"].value == 3 and parts["gpus"].value == 12


def test_rack_names_the_real_server_and_its_slips():
    # 40 / (14.3 x 0.8) = 3.50 -> 3; uncapped 40 / 14.3 = 2.80 -> 2; rounded up 4.
    t = registry.get("rack-power-servers")
    p = t.parse_params(
        {"rack_kw": 40, "server_kw": 14.3, "power_cap_fraction": 0.8, "gpus_per_server": 8}
    )
    assert "DGX B200" in t.statement(p)
    assert t.solve(p)["servers"].value == 3
    slips = {(m.code, m.part): m.value for m in t.misconceptions(p)}
    assert slips[("rounded-up", "servers")] == 4 and slips[("rounded-up", "gpus")] == 32
    assert slips[("cap-ignored", "servers")] == 2 and slips[("cap-ignored", "gpus")] == 16


def test_facility_round_numbers():
    parts = solve(
        "facility-power",
        {"n_servers": 100, "server_kw": 10, "pue": 1.2, "utilization": 0.5, "price_per_kwh": 0.1},
    )
    assert math.isclose(parts["facility_kw"].value, 600)
    assert math.isclose(parts["annual_mwh"].value, 5256)
    assert math.isclose(parts["annual_cost"].value, 525_600)
