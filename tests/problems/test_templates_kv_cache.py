"""KV-cache family: kv-cache-per-token, kv-cache-total, kv-max-sequences, tp-min-gpus."""

import math
import random

import pytest

from hardware_db import catalog
from problems.engine import registry
from problems.engine.variants import Variant
from tests.problems.template_harness import slips, solve

SEEDS = range(300)


@pytest.mark.parametrize("slug", ["kv-cache-per-token", "kv-cache-total"])
def test_requested_unit_is_the_part_unit(slug):
    t = registry.get(slug)
    base = t.generate(random.Random(3)).model_dump()
    choices = ("KB", "KiB", "MB", "MiB") if slug == "kv-cache-per-token" else ("GB", "GiB")
    for unit in choices:
        part = next(iter(solve(slug, {**base, "unit": unit}).values()))
        assert part.unit == unit


@pytest.mark.parametrize("slug", ["kv-max-sequences", "tp-min-gpus"])
def test_whole_number_answers_rarely_leave_fewer_than_two_slips(slug):
    # An integer answer of 1 leaves most slips landing on the same 1; keep that uncommon.
    few = sum(
        len({m.code for m in Variant.from_seed(slug, seed).misconceptions}) < 2 for seed in SEEDS
    )
    assert few <= 0.15 * len(SEEDS)


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
    named = slips("kv-cache-per-token", {**LLAMA_8B, "kv_dtype": "bf16", "unit": "KiB"})
    assert named[("missing-kv-factor-2", "per_token")] == 64
    assert named[("per-layer-only", "per_token")] == 4
    assert named[("attention-heads-not-kv-heads", "per_token")] == 512
    assert math.isclose(named[("gb-vs-gib", "per_token")], 131.072)
    params = {
        "n_params": 70553706496,
        "weight_dtype": "bf16",
        "gpu_mem_gib": 44.99,
        "reserve_fraction": 0.2,
    }
    assert solve("tp-min-gpus", params)["min_gpus"].value == 4  # 141.1e9 / 38.65e9 = 3.65
    assert slips("tp-min-gpus", params)[("wrong-bytes-per-param", "min_gpus")] == 8
