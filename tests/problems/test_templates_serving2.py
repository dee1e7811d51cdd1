"""Serving, second set: decode-batch-slo, softmax-temperature, prefix-cache-ttft,
decode-step-batched, moe-decode-floor."""

import math

import pydantic
import pytest

from problems.engine import registry
from tests.problems.template_harness import solve, variant


def test_decode_batch_slo_hand_values():
    # (60 - 6) / 0.12 = 450 exactly; a step of 60 ms yields 450 tokens.
    parts = solve(
        "decode-batch-slo", {"step_ms_base": 6.0, "step_ms_per_seq": 0.12, "tpot_slo_ms": 60}
    )
    assert parts["max_batch"].value == 450
    assert math.isclose(parts["tokens_per_s"].value, 7500.0)
    # (25 - 6) / 0.3 = 63.33 -> 63 sequences; a step of 6 + 18.9 = 24.9 ms.
    parts = solve(
        "decode-batch-slo", {"step_ms_base": 6.0, "step_ms_per_seq": 0.3, "tpot_slo_ms": 25}
    )
    assert parts["max_batch"].value == 63
    assert math.isclose(parts["tokens_per_s"].value, 63 / 0.0249)


def test_decode_batch_slo_slips():
    v = variant(
        "decode-batch-slo", {"step_ms_base": 6.0, "step_ms_per_seq": 0.3, "tpot_slo_ms": 25}
    )
    slips = {(m.code, m.part): m.value for m in v.misconceptions}
    assert slips[("base-ignored", "max_batch")] == 83
    assert slips[("ceil-not-floor", "max_batch")] == 64
    assert math.isclose(slips[("per-sequence-rate", "tokens_per_s")], 1000 / 24.9)
    exact_case = variant(
        "decode-batch-slo", {"step_ms_base": 6.0, "step_ms_per_seq": 0.12, "tpot_slo_ms": 60}
    )
    assert "ceil-not-floor" not in {m.code for m in exact_case.misconceptions}


def test_softmax_hand_values():
    # e^(z/T) = (3, 1) at T = 2: 75% on the top token, which alone reaches top_p = 0.75.
    z = 2 * math.log(3)
    parts = solve("softmax-temperature", {"logits": [z, 0.0], "temperature": 2, "top_p": 0.75})
    assert math.isclose(parts["p_top"].value, 75.0)
    assert parts["nucleus"].value == 1
    parts = solve("softmax-temperature", {"logits": [z, 0.0], "temperature": 2, "top_p": 0.8})
    assert parts["nucleus"].value == 2
    # Equal logits: uniform whatever T; top_p 0.5 of four tokens needs two.
    parts = solve("softmax-temperature", {"logits": [1.0] * 4, "temperature": 0.3, "top_p": 0.5})
    assert math.isclose(parts["p_top"].value, 25.0) and parts["nucleus"].value == 2


def test_softmax_logits_are_a_list_largest_first():
    v = variant(
        "softmax-temperature",
        {"logits": [5.7, 4.5, 4.4, 2.4, 1.7, 1.6], "temperature": 0.7, "top_p": 0.9},
    )
    assert v.params.model_dump(mode="json")["logits"] == [5.7, 4.5, 4.4, 2.4, 1.7, 1.6]
    assert "5.7, 4.5, 4.4" in v.statement_markdown()
    slips = {(m.code, m.part): m.value for m in v.misconceptions}
    # At T = 1 the top token has e^0 / (1 + e^-1.2 + e^-1.3 + ...).
    plain = 1 / sum(math.exp(z - 5.7) for z in (5.7, 4.5, 4.4, 2.4, 1.7, 1.6))
    assert math.isclose(slips[("temperature-ignored", "p_top")], plain * 100)
    assert slips[("stops-before-p", "nucleus")] == 2
    with pytest.raises(pydantic.ValidationError):
        registry.get("softmax-temperature").parse_params(
            {"logits": [1.0, 2.0], "temperature": 1, "top_p": 0.9}
        )


def test_prefix_cache_hand_values():
    # 2 x 8e9 x 1000 uncached tokens / (1 x 1000e12 x 0.5) = 32 ms; 3000 of 4000 saved.
    parts = solve(
        "prefix-cache-ttft",
        {
            "n_params": 8e9,
            "prompt_tokens": 4000,
            "cached_tokens": 3000,
            "peak_tflops": 1000,
            "n_gpus": 1,
            "mfu": 0.5,
        },
    )
    assert math.isclose(parts["ttft"].value, 32.0)
    assert math.isclose(parts["saved"].value, 75.0)
    with pytest.raises(pydantic.ValidationError):
        registry.get("prefix-cache-ttft").parse_params(
            {
                "n_params": 8e9,
                "prompt_tokens": 4000,
                "cached_tokens": 4000,
                "peak_tflops": 1000,
                "n_gpus": 1,
                "mfu": 0.5,
            }
        )


STEP_PARAMS = {
    "n_params": 7.24e9,
    "weight_dtype": "bf16",
    "n_layers": 32,
    "n_kv_heads": 8,
    "head_dim": 128,
    "kv_dtype": "fp8",
    "batch_size": 32,
    "context_tokens": 2048,
    "mem_bw_tbps": 3.35,
    "n_gpus": 1,
}


def test_decode_step_batched_hand_values():
    # kvpt = 2 x 32 x 8 x 128 x 1 = 65,536 B; cache 32 x 2048 x 65,536 = 2^32 B;
    # weights 14.48e9 B; (14.48e9 + 2^32) / 3.35e12 s.
    seconds = (14.48e9 + 2**32) / 3.35e12
    parts = solve("decode-step-batched", STEP_PARAMS)
    assert math.isclose(parts["step"].value, seconds * 1e3)
    assert math.isclose(parts["tokens_per_s"].value, 32 / seconds)
    slips = {
        (m.code, m.part): m.value
        for m in variant("decode-step-batched", STEP_PARAMS).misconceptions
    }
    assert math.isclose(slips[("kv-cache-ignored", "step")], 14.48e9 / 3.35e12 * 1e3)
    assert math.isclose(slips[("weights-per-sequence", "step")], (32 * 14.48e9 + 2**32) / 3.35e9)
    assert math.isclose(slips[("per-sequence-rate", "tokens_per_s")], 1 / seconds)
    # Four devices share every read.
    parts = solve("decode-step-batched", {**STEP_PARAMS, "n_gpus": 4})
    assert math.isclose(parts["step"].value, seconds * 1e3 / 4)


def test_moe_decode_floor_hand_values():
    # 39e9 active x 2 B over 8 x 4.8e12 B/s = 2.03125 ms; 141e9 x 2 B = 282 GB resident.
    params = {
        "n_total_params": 141e9,
        "n_active_params": 39e9,
        "weight_dtype": "bf16",
        "mem_bw_tbps": 4.8,
        "n_gpus": 8,
    }
    parts = solve("moe-decode-floor", params)
    assert math.isclose(parts["tpot"].value, 2.03125)
    assert math.isclose(parts["memory"].value, 282.0)
    slips = {(m.code, m.part): m.value for m in variant("moe-decode-floor", params).misconceptions}
    assert math.isclose(slips[("total-params-read", "tpot")], 282e9 / (8 * 4.8e12) * 1e3)
    assert math.isclose(slips[("active-only-resident", "memory")], 78.0)
    with pytest.raises(pydantic.ValidationError):
        registry.get("moe-decode-floor").parse_params({**params, "n_active_params": 2e11})


def test_moe_names_deepseek_v3():
    params = {
        "n_total_params": 671026419200.0,
        "n_active_params": 37552297472.0,
        "weight_dtype": "fp8",
        "mem_bw_tbps": 4.8,
        "n_gpus": 8,
    }
    text = variant("moe-decode-floor", params).statement_markdown()
    assert "DeepSeek-V3" in text and "H200" in text
