"""Serving family: decode-tpot-floor, prefill-time, spec-decode, littles-law."""

import math

from tests.problems.template_harness import solve, variant


def test_decode_llama_70b_bf16_on_four_h100():
    v = variant(
        "decode-tpot-floor",
        {"n_params": 70553706496, "weight_dtype": "bf16", "mem_bw_tbps": 3.35, "n_gpus": 4},
    )
    # 141.1 GB over 4 x 3.35 TB/s.
    assert math.isclose(v.parts["tpot"].value, 10.530404, rel_tol=1e-6)
    assert math.isclose(v.parts["tokens_per_s"].value, 94.963119, rel_tol=1e-6)
    assert "Llama 3.1 70B" in v.statement_markdown() and "H100" in v.statement_markdown()
    assert v.template.factor_hints(v.params).parallelism == 4


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
    params = {"alpha": 0.7, "gamma": 4, "draft_cost": 0.1138}
    text = variant("spec-decode", params).statement_markdown()
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
