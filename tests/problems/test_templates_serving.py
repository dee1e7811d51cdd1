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


# --- realism and conventions over seeds 0-199 (issue #11) ---------------------------------

from hardware_db import catalog  # noqa: E402
from problems.engine.variants import Variant  # noqa: E402
from problems.templates._common import matching_accelerators  # noqa: E402
from tests.problems.template_harness import slips  # noqa: E402

_SEEDS = range(200)


def _all_gpus(hits) -> bool:
    # NVIDIA and AMD parts are GPUs, except MI250X's two-GCD package (an accelerator).
    return bool(hits) and all(
        a.vendor in ("NVIDIA", "AMD") and "GCD" not in a.form_factor for a, _ in hits
    )


def test_prefill_phrasing_for_one_device_and_several():
    sparse = 0
    for seed in _SEEDS:
        v = Variant.from_seed("prefill-time", seed)
        p, text = v.params, v.statement_markdown()
        assert "a single GPU, each" not in text
        if p.n_gpus == 1:
            assert "It runs on a single " in text and ", each with" not in text, text
        else:
            assert f"It runs on {p.n_gpus} " in text and ", each with" in text, text
        hits = matching_accelerators(peak_tflops=p.peak_tflops)
        assert ("GPU" in text) == _all_gpus(hits), text
        if "2:4 structured-sparsity figure" in text:
            sparse += 1
            assert "dense BF16 peak" not in text and "dense FP8 peak" not in text
    assert sparse >= 200 / 3, sparse


def test_prefill_sparse_headline_is_halved():
    # Llama 3.1 8B on one H100 SXM at FP8: find the params whose hash quotes the headline.
    for mfu in (0.25, 0.3, 0.35, 0.4, 0.45, 0.55, 0.6):
        params = {
            "n_params": 8030261248.0,
            "prompt_tokens": 4096,
            "peak_tflops": 989.4,
            "n_gpus": 1,
            "mfu": mfu,
        }
        v = variant("prefill-time", params)
        if "1,979 TFLOP/s" in v.statement_markdown():
            break
    else:
        raise AssertionError("no variant quoted the sparse headline")
    text = v.statement_markdown()
    assert "989.4" not in text and "a single GPU (NVIDIA H100 SXM5 80GB" in text
    ms = v.parts["ttft"].value
    assert v.grade("ttft", f"{ms:.4g}").correct
    assert slips("prefill-time", params)[("sparse-peak", "ttft")] < ms * 0.51
    assert v.grade("ttft", f"{ms / 2:.4g}").misconception == "sparse-peak"


def test_prefill_names_forgetting_the_device_count():
    params = {
        "n_params": 70553706496.0,
        "prompt_tokens": 8192,
        "peak_tflops": 918,
        "n_gpus": 8,
        "mfu": 0.4,
    }
    v = variant("prefill-time", params)
    text = v.statement_markdown()
    assert "8 TPU chips" in text and "GPU" not in text
    ms = v.parts["ttft"].value
    assert v.grade("ttft", f"{ms * 8:.4g}").misconception == "per-gpu-vs-total"


def test_decode_calls_only_gpus_gpus():
    for seed in _SEEDS:
        v = Variant.from_seed("decode-tpot-floor", seed)
        text = v.statement_markdown()
        hits = matching_accelerators(mem_bw_tbps=v.params.mem_bw_tbps)
        assert ("GPU" in text) == _all_gpus(hits), text


def test_decode_bits_slip_on_eight_devices_is_named():
    # 8 x slip on 8 devices: the learner who forgot to split is told so.
    params = {"n_params": 4.058533888e11, "weight_dtype": "fp8", "mem_bw_tbps": 3.35, "n_gpus": 8}
    v = variant("decode-tpot-floor", params)
    tpot = v.parts["tpot"].value
    assert v.grade("tpot", f"{tpot * 8:.4g}").misconception == "per-gpu-vs-total"
    # ... but not where it would coincide with the bytes-per-parameter slip (FP8 read as 2 B).
    params["n_gpus"] = 2
    codes = {m.code for m in variant("decode-tpot-floor", params).misconceptions}
    assert "per-gpu-vs-total" not in codes and "wrong-bytes-per-param" in codes
    assert catalog.accelerator("h100-sxm").vendor == "NVIDIA"
