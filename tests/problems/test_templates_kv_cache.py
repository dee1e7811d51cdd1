"""KV-cache family: kv-cache-per-token, kv-cache-total, kv-max-sequences, tp-min-gpus."""

import math
import random

import pytest

from hardware_db import catalog
from problems.engine import registry
from problems.engine.variants import Variant
from problems.templates.kv_cache._family import (
    SCALE_UP,
    accelerators_for_gib,
    models_with_shape,
    stated_mib,
    uses_config,
)
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
    assert set(answers) == {1, 2, 4, 8}


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


# --- realism (issue #11), over seeds 0-199 ---------------------------------------------

SHOW = range(200)


def _params(slug, seed):
    return Variant.from_seed(slug, seed).params


def tp_problems(p) -> list[str]:
    """What a senior engineer would object to in a tp-min-gpus variant."""
    out = []
    answer = solve("tp-min-gpus", p.model_dump())["min_gpus"].value
    model = next(m for m in catalog.models() if m.total_params == p.n_params)
    accs = accelerators_for_gib(p.gpu_mem_gib)
    if not accs:
        out.append("no catalog part has this memory")
    if not 0 <= answer <= 8:
        out.append(f"TP {answer} leaves the 8-device scale-up domain")
    if any(answer > SCALE_UP[a.slug][0] for a in accs):
        out.append("TP beyond the part's scale-up domain")
    if answer > model.n_kv_heads:
        out.append("TP above the KV heads")
    return out


def test_tp_min_gpus_answers_stay_in_the_scale_up_domain():
    # Show: tp-min-gpus answers are 0-8 in >= 95% of seeds 0-199 (here: all of them), never
    # above the model's KV heads or the part's domain (2 for an NVLink-bridged H100 NVL).
    assert all(tp_problems(_params("tp-min-gpus", s)) == [] for s in SHOW)
    answers = [Variant.from_seed("tp-min-gpus", s).parts["min_gpus"].value for s in SHOW]
    assert sum(0 <= a <= 8 for a in answers) >= 0.95 * len(SHOW)
    assert sum(a > 1 for a in answers) >= 0.6 * len(SHOW)  # mostly a real sharding decision


def test_tp_realism_check_can_fail():
    # The old generator's kind of variant: Llama 3.1 405B in BF16 on L40S needs TP 32.
    bad = registry.get("tp-min-gpus").parse_params(
        {"n_params": 405853388800, "weight_dtype": "bf16", "gpu_mem_gib": 44.99,
         "reserve_fraction": 0.1}
    )  # fmt: skip
    assert "TP 32 leaves the 8-device scale-up domain" in tp_problems(bad)
    # Llama 3.1 70B in BF16 on two bridged H100 NVL is fine; on 4 it leaves the pair.
    nvl = {"n_params": 70553706496, "weight_dtype": "bf16", "reserve_fraction": 0.3}
    assert tp_problems(registry.get("tp-min-gpus").parse_params({**nvl, "gpu_mem_gib": 93.58}))
    assert solve("tp-min-gpus", {**nvl, "gpu_mem_gib": 93.58})["min_gpus"].value == 4


def test_kv_max_sequences_never_has_more_gpus_than_kv_heads():
    # Show: never, over seeds 0-199; and never past the part's scale-up domain.
    for s in SHOW:
        p = _params("kv-max-sequences", s)
        assert p.n_gpus <= p.n_kv_heads, s
        assert all(p.n_gpus <= SCALE_UP[a.slug][0] for a in accelerators_for_gib(p.gpu_mem_gib))


def test_h100_nvl_usable_memory_is_the_reported_total():
    assert round(catalog.accelerator("h100-nvl").usable_gib, 2) == 93.58  # 95,830 MiB


def total_problems(p) -> list[str]:
    out = []
    if p.kv_dtype not in ("bf16", "fp16", "fp8"):
        out.append(f"{p.kv_dtype} KV cache")
    t = registry.get("kv-cache-total")
    if t._bytes(p) > 1e12:
        out.append("more than 1 TB of KV cache")
    if p.batch_size * p.seq_len > 2**21:
        out.append("more than 2^21 tokens in flight")
    return out


def test_kv_cache_total_batches_are_realistic():
    assert all(total_problems(_params("kv-cache-total", s)) == [] for s in SHOW)
    assert all(_params("kv-cache-per-token", s).kv_dtype in ("bf16", "fp16", "fp8") for s in SHOW)
    # The example fails the check: GPT-3 in FP32, 256 x 2,048 tokens is 2.4 TB.
    gpt3 = {"n_layers": 96, "n_kv_heads": 96, "head_dim": 128, "kv_dtype": "fp32",
            "batch_size": 256, "seq_len": 2048, "unit": "GB"}  # fmt: skip
    bad = registry.get("kv-cache-total").parse_params(gpt3)
    assert total_problems(bad) == ["fp32 KV cache", "more than 1 TB of KV cache"]


def test_conventions_are_examined_in_a_third_of_variants():
    # Memory as nvidia-smi shows it (MiB) in tp-min-gpus and kv-max-sequences; the model's
    # config.json instead of d_h in kv-cache-per-token and kv-cache-total.
    for slug in ("tp-min-gpus", "kv-max-sequences"):
        mib = [stated_mib(_params(slug, s).gpu_mem_gib) for s in SHOW]
        assert sum(m is not None for m in mib) >= len(SHOW) / 3, slug
    for slug in ("kv-cache-per-token", "kv-cache-total"):
        quoted = sum("config.json" in Variant.from_seed(slug, s).statement_markdown() for s in SHOW)
        assert quoted >= len(SHOW) / 3, slug


def test_mib_statement_and_its_slip():
    # Llama 3.1 70B in BF16 on H100 SXM as nvidia-smi reports it, 81,559 MiB, keeping 15%:
    # W = 141,107,412,992 B; C = 81,559 x 2^20 x 0.85 = 72,692,688,486.4 B; W/C = 1.941 -> 2.
    # Read as 81,559 MB: C = 69,325,150,000 B, W/C = 2.035 -> 4.
    p = {"n_params": 70553706496, "weight_dtype": "bf16", "gpu_mem_gib": 81559 / 1024,
         "reserve_fraction": 0.15}  # fmt: skip
    v = Variant.from_params("tp-min-gpus", p)
    assert "81,559 MiB" in v.statement_markdown()
    assert v.parts["min_gpus"].value == 2
    assert slips("tp-min-gpus", p)[("gb-vs-gib", "min_gpus")] == 4
    # The two-decimal GiB figure is stated as GiB.
    assert (
        "79.65"
        in Variant.from_params("tp-min-gpus", {**p, "gpu_mem_gib": 79.65}).statement_markdown()
    )


def test_config_statement_and_hidden_size_slip():
    models = models_with_shape(32, 8, 128)
    assert uses_config(32, 8, 128, models, "bf16", "MiB")
    params = {**LLAMA_8B, "kv_dtype": "bf16", "unit": "MiB"}
    v = Variant.from_params("kv-cache-per-token", params)
    assert "`hidden_size: 4096`" in v.statement_markdown()
    assert "$d_h = 128$" not in v.statement_markdown()
    # hidden_size as d_h: 2 x 32 x 8 x 4096 x 2 B = 4 MiB (32x the right 0.125 MiB).
    assert slips("kv-cache-per-token", params)[("hidden-size-as-head-dim", "per_token")] == 4


def test_rounded_down_is_named_only_where_the_reserve_does_not_matter():
    # Llama 3.1 70B BF16 on L40S (44.99 GiB), r = 0.2: W/C = 141.1e9 / 38.65e9 = 3.65 -> 4;
    # without the reserve 141.1e9 / 48.31e9 = 2.92 -> 4 too, so rounding down (2) is its own slip.
    p = {"n_params": 70553706496, "weight_dtype": "bf16", "gpu_mem_gib": 44.99,
         "reserve_fraction": 0.2}  # fmt: skip
    named = slips("tp-min-gpus", p)
    assert named[("rounded-down", "min_gpus")] == 2
    assert ("reserve-not-applied", "min_gpus") not in named
    # r = 0.3: W/C = 141.1e9 / 33.82e9 = 4.17 -> 8; without the reserve 2.92 -> 4, which is
    # also "rounded down": named once, as reserve-not-applied.
    named = slips("tp-min-gpus", {**p, "reserve_fraction": 0.3})
    assert named[("reserve-not-applied", "min_gpus")] == 4
    assert ("rounded-down", "min_gpus") not in named


def test_kv_cache_total_asks_whether_the_cache_fits_rather_than_pretending():
    """The second part names one accelerator and asks whether the batch's cache alone
    fits; over seeds 0-199 both answers occur, never as a rounding call (the cache stays
    at least 15% away from the device's capacity), and forgetting the batch is named."""
    t = registry.get("kv-cache-total")
    answers = []
    for seed in range(200):
        v = Variant.from_seed("kv-cache-total", seed)
        fits = v.parts["fits"]
        answers.append(fits.value)
        ratio = t._bytes(v.params) / t._device_bytes(v.params)
        assert not 1 / 1.15 < ratio < 1.15, seed
        assert (fits.value == "yes") == (ratio <= 1), seed
        assert "Answer yes or no" in v.statement_markdown()
        wrong = "no" if fits.value == "yes" else "yes"
        assert not v.grade("fits", wrong).correct
    assert {"yes", "no"} <= set(answers)
