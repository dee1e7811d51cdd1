"""KV-cache family: kv-cache-per-token, kv-cache-total, kv-max-sequences, tp-min-gpus."""

import math
import random
import re
import xml.etree.ElementTree as ET

import pydantic
import pytest

from problems.engine import registry
from problems.engine.check import check_all
from problems.engine.render import render_markdown
from problems.engine.template import Kind
from problems.engine.tolerance import Exact
from tests.problems.conftest import load_cases

CONTRACT = {
    "kv-cache-per-token": (
        {"n_layers", "n_kv_heads", "head_dim", "kv_dtype", "unit"},
        {"per_token": None},
    ),
    "kv-cache-total": (
        {"n_layers", "n_kv_heads", "head_dim", "kv_dtype", "batch_size", "seq_len", "unit"},
        {"total": None},
    ),
    "kv-max-sequences": (
        {
            "gpu_mem_gib",
            "n_gpus",
            "gpu_mem_util",
            "n_params",
            "weight_dtype",
            "n_layers",
            "n_kv_heads",
            "head_dim",
            "kv_dtype",
            "seq_len",
        },
        {"max_seqs": ""},
    ),
    "tp-min-gpus": (
        {"n_params", "weight_dtype", "gpu_mem_gib", "reserve_fraction"},
        {"min_gpus": ""},
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
    if case["kind"] == "numeric":
        assert math.isclose(part.value, case["value"], rel_tol=1e-9)
    else:
        assert part.value == case["value"]
        assert type(part.value) is int


@pytest.mark.parametrize("slug", SLUGS)
def test_params_and_parts_match_the_contract(slug):
    t = registry.get(slug)
    names, parts = CONTRACT[slug]
    assert set(t.Params.model_fields) == names
    p = t.generate(random.Random(1))
    solved = t.solve(p)
    assert set(solved) == set(parts)
    for name, unit in parts.items():
        if unit is not None:
            assert solved[name].unit == unit
            assert solved[name].kind is Kind.INTEGER
            assert isinstance(solved[name].tolerance, Exact)
    assert set(t.lessons) <= LESSONS and t.lessons
    assert all(KEBAB.match(s) for s in t.skills) and t.skills


@pytest.mark.parametrize("slug", ["kv-cache-per-token", "kv-cache-total"])
def test_requested_unit_is_the_part_unit(slug):
    t = registry.get(slug)
    base = t.generate(random.Random(3)).model_dump()
    choices = ("KB", "KiB", "MB", "MiB") if slug == "kv-cache-per-token" else ("GB", "GiB")
    for unit in choices:
        part = next(iter(solve(slug, {**base, "unit": unit}).values()))
        assert part.unit == unit


# --- 300 generated variants per template ---------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_generated_variants(slug):
    t = registry.get(slug)
    few_mistakes = 0
    for seed in SEEDS:
        p = t.generate(random.Random(seed))
        assert t.generate(random.Random(seed)) == p, seed
        assert t.parse_params(p.model_dump()) == p
        parts = t.solve(p)
        for part in parts.values():
            if part.kind is Kind.INTEGER:
                assert type(part.value) is int and part.value >= 0
            else:
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
        integer = any(part.kind is Kind.INTEGER for part in parts.values())
        if not integer:
            assert len(codes) >= 2, (seed, codes)
        few_mistakes += len(codes) < 2
    # An integer answer of 1 leaves most slips landing on the same 1; keep that uncommon.
    assert few_mistakes <= 0.15 * len(SEEDS)


def test_generators_vary_and_stay_realistic():
    t = registry.get("kv-max-sequences")
    answers = [t.solve(t.generate(random.Random(s)))["max_seqs"].value for s in SEEDS]
    assert all(a >= 1 for a in answers)  # the weights always fit
    assert sum(a <= 5 for a in answers) >= 10  # some tight deployments
    assert len(set(answers)) > 100
    t = registry.get("tp-min-gpus")
    answers = [t.solve(t.generate(random.Random(s)))["min_gpus"].value for s in SEEDS]
    assert {1, 2, 4, 8, 16, 32} <= set(answers)


def test_generators_skip_mla_and_respect_sliding_window():
    from hardware_db import catalog

    mla = {(m.n_layers, m.n_kv_heads) for m in catalog.models() if m.kv_lora_rank is not None}
    for slug in ("kv-cache-per-token", "kv-cache-total", "kv-max-sequences"):
        t = registry.get(slug)
        for seed in range(100):
            p = t.generate(random.Random(seed))
            assert (p.n_layers, p.n_kv_heads) not in mla
    t = registry.get("kv-max-sequences")
    mistral = catalog.model("mistral-7b")
    for seed in SEEDS:
        p = t.generate(random.Random(seed))
        if p.n_params == mistral.total_params:
            assert p.seq_len <= mistral.sliding_window


@pytest.mark.parametrize("slug", SLUGS)
def test_engine_qa_sweep(slug):
    """The project's own sweep: exact answers grade correct (also in another unit) and
    every misconception grades to its own code."""
    report = check_all(variants=50, slugs=[slug])
    assert report.variants == 50
    assert report.failures == []


# --- hand-checked values ---------------------------------------------------------------

LLAMA_8B = {"n_layers": 32, "n_kv_heads": 8, "head_dim": 128}


@pytest.mark.parametrize(
    ("shape", "dtype", "unit", "value"),
    [
        (LLAMA_8B, "bf16", "KiB", 128),  # Llama 3.1 8B: 131,072 B
        ({"n_layers": 80, "n_kv_heads": 8, "head_dim": 128}, "bf16", "KiB", 320),  # 70B
        ({"n_layers": 126, "n_kv_heads": 8, "head_dim": 128}, "bf16", "KiB", 504),  # 405B
        ({"n_layers": 32, "n_kv_heads": 32, "head_dim": 128}, "bf16", "KiB", 512),  # Llama 2 7B
        ({"n_layers": 96, "n_kv_heads": 96, "head_dim": 128}, "bf16", "MiB", 4.5),  # GPT-3
        (LLAMA_8B, "fp8", "KB", 65.536),
        (LLAMA_8B, "int4", "KiB", 32),
    ],
)
def test_per_token_spot_values(shape, dtype, unit, value):
    part = solve("kv-cache-per-token", {**shape, "kv_dtype": dtype, "unit": unit})["per_token"]
    assert math.isclose(part.value, value, rel_tol=1e-12)


def test_total_spot_values():
    # HF's Llama 3.1 blog: 8B at 128,000 tokens in BF16 is 15.62 "GB", i.e. GiB.
    params = {**LLAMA_8B, "kv_dtype": "bf16", "batch_size": 1, "seq_len": 128000}
    assert math.isclose(solve("kv-cache-total", {**params, "unit": "GiB"})["total"].value, 15.625)
    assert math.isclose(solve("kv-cache-total", {**params, "unit": "GB"})["total"].value, 16.777216)


def max_seqs(**over):
    params = {
        "gpu_mem_gib": 80,
        "n_gpus": 1,
        "gpu_mem_util": 0.9,
        "n_params": 8030261248,
        "weight_dtype": "bf16",
        **LLAMA_8B,
        "kv_dtype": "bf16",
        "seq_len": 8192,
    }
    params.update(over)
    return solve("kv-max-sequences", params)["max_seqs"].value


def test_max_sequences_spot_values():
    # 72 GiB budget - 16.06e9 B weights = 61.25e9 B; one 8192-token sequence is exactly 1 GiB.
    assert max_seqs() == 57
    assert max_seqs(n_gpus=2) == 129  # 138.56e9 B / 1 GiB = 129.04
    assert max_seqs(kv_dtype="fp8") == 114
    # Llama 3.1 405B in BF16 does not fit on one 80 GiB GPU: floored at zero.
    assert max_seqs(n_params=405853388800, n_layers=126) == 0


def test_max_sequences_floor_is_exact():
    # 3 x 1 GiB x 0.3 = 966,367,641.6 B exactly; minus 1,641.6 B of INT8 weights leaves
    # exactly 966,366,000 B = 966,366 sequences of 1,000 B. Binary floats give 966,365.
    value = max_seqs(
        gpu_mem_gib=1,
        n_gpus=3,
        gpu_mem_util=0.3,
        n_params=1641.6,
        weight_dtype="int8",
        n_layers=1,
        n_kv_heads=1,
        head_dim=1,
        kv_dtype="int8",
        seq_len=500,
    )
    assert value == 966366


def tp(**over):
    params = {"n_params": 405853388800, "weight_dtype": "bf16", "gpu_mem_gib": 79.65}
    params["reserve_fraction"] = 0.0
    params.update(over)
    return solve("tp-min-gpus", params)["min_gpus"].value


def test_tp_min_gpus_spot_values():
    assert tp() == 16  # 811.7e9 B / 85.52e9 B = 9.5 GPUs -> next power of two
    assert tp(weight_dtype="fp8") == 8  # 4.75
    assert tp(weight_dtype="int4") == 4  # 2.4
    assert tp(n_params=8030261248) == 1
    # DeepSeek-V3 in BF16 on 16 GiB TPU v5e chips needs 87: more than 64.
    assert tp(n_params=671026419200, gpu_mem_gib=16, reserve_fraction=0.1) == 0


def test_tp_min_gpus_boundary_is_inclusive_and_exact():
    # Weights exactly fill 4 devices of 1 GiB x 0.75.
    assert tp(n_params=1610612736, gpu_mem_gib=1, reserve_fraction=0.25) == 4
    # 8 GiB of BF16 weights on one 80 GiB device with 90% reserved: exactly full. Binary
    # floats make 80 x 2^30 x (1 - 0.9) a hair under 8 GiB and would answer 2.
    assert tp(n_params=4294967296, gpu_mem_gib=80, reserve_fraction=0.9) == 1
    assert tp(n_params=9019431321.6, gpu_mem_gib=24, reserve_fraction=0.3) == 1
    assert tp(n_params=9019431321.7, gpu_mem_gib=24, reserve_fraction=0.3) == 2


def test_misconception_values_are_the_named_slips():
    t = registry.get("kv-cache-per-token")
    p = t.parse_params({**LLAMA_8B, "kv_dtype": "bf16", "unit": "KiB"})
    by_code = {m.code: m.value for m in t.misconceptions(p)}
    assert by_code["missing-kv-factor-2"] == 64
    assert by_code["per-layer-only"] == 4
    assert by_code["attention-heads-not-kv-heads"] == 512
    assert math.isclose(by_code["gb-vs-gib"], 131.072)
    t = registry.get("tp-min-gpus")
    p = t.parse_params(
        {
            "n_params": 70553706496,
            "weight_dtype": "bf16",
            "gpu_mem_gib": 44.99,
            "reserve_fraction": 0.2,
        }
    )
    assert t.solve(p)["min_gpus"].value == 4  # 141.1e9 / 38.65e9 = 3.65
    codes = {m.code: m.value for m in t.misconceptions(p)}
    assert codes["wrong-bytes-per-param"] == 8


# --- bad parameters --------------------------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_extra_and_missing_params_are_refused(slug):
    t = registry.get(slug)
    good = t.generate(random.Random(0)).model_dump()
    with pytest.raises(pydantic.ValidationError):
        t.parse_params({**good, "model": "llama"})
    for name in good:
        with pytest.raises(pydantic.ValidationError):
            t.parse_params({k: v for k, v in good.items() if k != name})


@pytest.mark.parametrize(
    ("slug", "name", "value"),
    [
        ("kv-cache-per-token", "n_layers", 0),
        ("kv-cache-per-token", "kv_dtype", "fp64"),
        ("kv-cache-per-token", "unit", "GB"),
        ("kv-cache-total", "batch_size", 0),
        ("kv-cache-total", "unit", "MiB"),
        ("kv-max-sequences", "gpu_mem_util", 1.5),
        ("kv-max-sequences", "gpu_mem_gib", -80),
        ("kv-max-sequences", "n_params", 0),
        ("tp-min-gpus", "reserve_fraction", 1),
        ("tp-min-gpus", "weight_dtype", "fp6"),
    ],
)
def test_out_of_range_is_refused(slug, name, value):
    t = registry.get(slug)
    good = t.generate(random.Random(0)).model_dump()
    with pytest.raises(pydantic.ValidationError):
        t.parse_params({**good, name: value})
