"""Hand-checked answers and slips for the planning family (which-parallelism,
batching-policy, retry-amplification, cancelled-stream-waste). None of the four shows
tool output, so there is no output to parse back; the generator tests below check
instead that every answer the templates teach is drawn, and that each drawn answer
follows from the stated numbers by a rule written here, not by the template's code."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from hardware_db import catalog
from problems.engine import registry
from problems.engine.variants import ParamError, Variant
from tests.problems.template_harness import slips, solve

GIB = 2**30

# --- which-parallelism ----------------------------------------------------------------------


def _wp(model, acc, workload="inference", dtype="bf16", reserve=20):
    return {
        "model": model,
        "accelerator": acc,
        "workload": workload,
        "weight_dtype": dtype,
        "reserve_pct": reserve,
    }


def test_which_parallelism_70b_bf16_on_h100_is_tensor_parallel():
    # 70,553,706,496 x 2 B = 141.107 GB; an H100 keeps 79.65 GiB x 0.8 = 63.72 GiB =
    # 68.419 GB -> 2.062 -> 3 GPUs; one node keeps 547.4 GB -> fits: tensor-parallel.
    # Reserve ignored: 141.107 / 85.524 = 1.65 -> 2. GiB read as GB: 141.107 / 63.72 =
    # 2.21 -> 3, the answer itself, so not named.
    params = _wp("llama-3.1-70b", "h100-sxm")
    parts = solve("which-parallelism", params)
    assert parts["strategy"].value == "tensor-parallel"
    assert parts["min_gpus"].value == 3
    named = slips("which-parallelism", params)
    assert named[("replica-does-not-fit", "strategy")] == "data-parallel"
    assert named[("pipeline-when-node-fits", "strategy")] == "pipeline-parallel"
    assert named[("fsdp-at-inference", "strategy")] == "fsdp"
    assert named[("expert-parallel-dense", "strategy")] == "expert-parallel"
    assert named[("reserve-ignored", "min_gpus")] == 2
    assert ("gib-read-as-gb", "min_gpus") not in named


def test_which_parallelism_405b_bf16_on_h100_needs_pipeline_across_nodes():
    # 811.707 GB / 68.419 GB = 11.86 -> 12 GPUs, more than one 8-GPU node (547.4 GB):
    # TP inside each node, PP across nodes. Reserve ignored: / 85.524 = 9.49 -> 10;
    # GiB read as GB: / 63.72 = 12.74 -> 13.
    params = _wp("llama-3.1-405b", "h100-sxm")
    parts = solve("which-parallelism", params)
    assert parts["strategy"].value == "pipeline-parallel"
    assert parts["min_gpus"].value == 12
    named = slips("which-parallelism", params)
    assert named[("tp-across-nodes", "strategy")] == "tensor-parallel"
    assert named[("reserve-ignored", "min_gpus")] == 10
    assert named[("gib-read-as-gb", "min_gpus")] == 13


def test_which_parallelism_8b_training_on_h100_is_fsdp():
    # 8,030,261,248 x 16 B = 128.484 GB / 68.419 GB = 1.88 -> 2 GPUs, one node: FSDP.
    # Weights only: 16.06 GB -> 1. GiB read as GB: 128.484 / 63.72 = 2.02 -> 3. FP32
    # master copy forgotten (12 B): 96.36 / 68.42 = 1.41 -> 2 = answer, not named.
    params = _wp("llama-3.1-8b", "h100-sxm", workload="training")
    parts = solve("which-parallelism", params)
    assert parts["strategy"].value == "fsdp"
    assert parts["min_gpus"].value == 2
    named = slips("which-parallelism", params)
    assert named[("tp-before-sharding", "strategy")] == "tensor-parallel"
    assert named[("weights-only", "min_gpus")] == 1
    assert named[("gib-read-as-gb", "min_gpus")] == 3
    assert ("master-copy-forgotten", "min_gpus") not in named


def test_which_parallelism_deepseek_fp8_on_h200_is_expert_or_tensor_parallel():
    # 671,026,419,200 B at FP8; an H200 keeps 140.4 GiB x 0.8 = 120.603 GB -> 5.56 -> 6.
    # Active parameters only: 37.55 GB -> 1. One node holds it: EP and TP = 8 are both
    # what DeepSeek-V3 is served with on one 8-GPU node, so both grade right.
    params = _wp("deepseek-v3", "h200", dtype="fp8")
    parts = solve("which-parallelism", params)
    assert parts["strategy"].value == "expert-parallel"
    assert parts["min_gpus"].value == 6
    named = slips("which-parallelism", params)
    assert ("tp-for-experts", "strategy") not in named
    assert named[("active-params-only", "min_gpus")] == 1
    v = Variant.from_params("which-parallelism", params)
    assert v.grade("strategy", "tensor-parallel").correct


def test_which_parallelism_deepseek_fp8_on_one_mi325x_node_accepts_tp_as_well_as_ep():
    # Issue 34: 671.03 GB at FP8; an MI325X keeps 256 GiB x 0.8 = 219.90 GB -> 3.05 -> 4
    # GPUs, one node.
    params = _wp("deepseek-v3", "mi325x", dtype="fp8")
    v = Variant.from_params("which-parallelism", params)
    assert v.parts["min_gpus"].value == 4
    for answer in ("expert-parallel", "tensor-parallel"):
        assert v.grade("strategy", answer).correct, answer
    assert v.grade("strategy", "pipeline-parallel").misconception == "pipeline-when-node-fits"
    assert "tensor parallelism" in v.solution_markdown().split("Answer:")[0]


def test_which_parallelism_405b_on_a100_nodes_asks_for_the_split_between_nodes():
    # Issue 34: 811.7 GB of BF16 weights; an A100 keeps 80 GiB x 0.8 = 68.72 GB: 12 GPUs,
    # two nodes. The solution puts TP = 8 inside each node, so the question asks for the
    # split between the nodes, and that is pipeline parallelism; TP across nodes is a slip.
    params = _wp("llama-3.1-405b", "a100-sxm-80gb")
    v = Variant.from_params("which-parallelism", params)
    assert v.parts["strategy"].value == "pipeline-parallel"
    statement = v.statement_markdown()
    assert "between the nodes" in statement
    assert "tensor parallelism" in statement.split("between the nodes")[0].split("\n")[-1]
    assert v.grade("strategy", "tensor-parallel").misconception == "tp-across-nodes"


def test_which_parallelism_draws_no_wide_moe_across_nodes():
    """A wide MoE that spans nodes is served with EP, PP or even TP across nodes and
    trained with PP and EP together: experts argue, so such variants are not drawn
    (solve still answers expert-parallel for them)."""
    for seed in range(300):
        v = Variant.from_seed("which-parallelism", seed)
        if catalog.model(v.params.model).arch_type == "moe":
            assert v.parts["min_gpus"].value <= 8, seed
    wide = _wp("deepseek-v3", "h100-sxm", workload="training")
    assert solve("which-parallelism", wide)["strategy"].value == "expert-parallel"


def test_which_parallelism_mixtral_on_one_h200_needs_no_split():
    # 93.41 GB against 140.4 GiB x 0.9 = 135.68 GB: one GPU, data parallel.
    params = _wp("mixtral-8x7b", "h200", reserve=10)
    parts = solve("which-parallelism", params)
    assert parts["strategy"].value == "data-parallel"
    assert parts["min_gpus"].value == 1
    named = slips("which-parallelism", params)
    assert named[("split-when-it-fits", "strategy")] in {
        "fsdp",
        "tensor-parallel",
        "pipeline-parallel",
        "expert-parallel",
    }


@pytest.mark.parametrize(
    "change",
    [
        {"workload": "training", "weight_dtype": "fp8"},  # training keeps BF16 weights
        {"accelerator": "a100-sxm-80gb", "weight_dtype": "fp8"},  # no FP8 on A100
        {"model": "gpt-5"},
        {"accelerator": "tpu-v5e"},
    ],
)
def test_which_parallelism_refuses_inconsistent_params(change):
    with pytest.raises(ParamError):
        Variant.from_params("which-parallelism", {**_wp("llama-3.1-70b", "h100-sxm"), **change})


def _expected_strategy(p) -> str:
    """The ladder, from the catalog figures the statement quotes."""
    m = catalog.model(p.model)
    per_param = {"bf16": 2, "fp8": 1, "int4": 0.5}[p.weight_dtype]
    need = m.total_params * (16 if p.workload == "training" else per_param)
    gpu = round(catalog.accelerator(p.accelerator).usable_gib, 2) * GIB * (1 - p.reserve_pct / 100)
    if need <= gpu:
        return "data-parallel"
    if m.arch_type == "moe":
        return "expert-parallel"
    if need <= 8 * gpu:
        return "fsdp" if p.workload == "training" else "tensor-parallel"
    return "pipeline-parallel"


def test_which_parallelism_generator_draws_every_rung_by_the_rule():
    seen = Counter()
    for seed in range(200):
        v = Variant.from_seed("which-parallelism", seed)
        assert v.parts["strategy"].value == _expected_strategy(v.params), seed
        seen[v.parts["strategy"].value] += 1
        assert catalog.model(v.params.model).name in v.statement_markdown(), seed
    assert set(seen) == {
        "data-parallel",
        "fsdp",
        "tensor-parallel",
        "pipeline-parallel",
        "expert-parallel",
    }


# --- batching-policy ------------------------------------------------------------------------


def _bp(**kw):
    base = {
        "workload": "generation",
        "arrival_rps": 2.0,
        "batch_size": 32,
        "max_wait_ms": 20.0,
        "prompt_tokens": 300,
        "prefill_tok_s": 16000.0,
        "output_tokens": 500,
        "decode_step_ms": 20.0,
        "ttft_slo_ms": 1000.0,
        "tpot_slo_ms": 50.0,
    }
    return {**base, **kw}


def test_batching_policy_chat_is_continuous():
    # Fill: (32 - 1) / 2 = 15.5 s = 15,500 ms (B / lambda = 16,000; average 7,750).
    # A whole 300-token prefill is 18.75 ms: step 38.75 ms <= 50 TPOT -> continuous;
    # request-level batching makes a newcomer wait 500 x 20 ms = 10 s > 1 s TTFT.
    params = _bp()
    parts = solve("batching-policy", params)
    assert parts["fill_wait"].value == pytest.approx(15_500)
    assert parts["policy"].value == "continuous"
    named = slips("batching-policy", params)
    assert named[("counts-own-arrival", "fill_wait")] == pytest.approx(16_000)
    assert named[("average-not-first", "fill_wait")] == pytest.approx(7_750)
    assert named[("static-fill-wait", "policy")] == "static"
    assert named[("request-level-batching", "policy")] == "dynamic"
    assert named[("chunking-not-needed", "policy")] == "chunked-prefill"
    assert named[("disaggregation-not-needed", "policy")] == "disaggregated"


def test_batching_policy_long_prompts_need_chunked_prefill():
    # Prefill 8,000 / 16,000 = 500 ms: step 525 ms > 60 ms TPOT. Chunked: prefill gets
    # 1 - 25/60 of each step, TTFT = 500 / 0.58333 = 857.1 ms <= 1,500. Fill: 15 / 0.5 s.
    params = _bp(
        arrival_rps=0.5,
        batch_size=16,
        prompt_tokens=8000,
        output_tokens=300,
        decode_step_ms=25.0,
        ttft_slo_ms=1500.0,
        tpot_slo_ms=60.0,
    )
    parts = solve("batching-policy", params)
    assert parts["fill_wait"].value == pytest.approx(30_000)
    assert parts["policy"].value == "chunked-prefill"
    named = slips("batching-policy", params)
    assert named[("prefill-stalls-decode", "policy")] == "continuous"
    assert named[("disaggregation-not-needed", "policy")] == "disaggregated"


def test_batching_policy_very_long_prompts_need_disaggregation():
    # Prefill 16,000 / 16,000 = 1 s; chunked TTFT = 1 / (1 - 25/50) = 2 s > 1.5 s; a
    # separate prefill pool gives 1 s <= 1.5 s. Fill: 7 / 0.2 = 35 s.
    params = _bp(
        arrival_rps=0.2,
        batch_size=8,
        prompt_tokens=16000,
        output_tokens=800,
        decode_step_ms=25.0,
        ttft_slo_ms=1500.0,
        tpot_slo_ms=50.0,
    )
    parts = solve("batching-policy", params)
    assert parts["fill_wait"].value == pytest.approx(35_000)
    assert parts["policy"].value == "disaggregated"
    named = slips("batching-policy", params)
    assert named[("chunked-ttft-too-long", "policy")] == "chunked-prefill"
    assert named[("prefill-stalls-decode", "policy")] == "continuous"


def test_batching_policy_defines_the_tpot_its_key_uses():
    """Issue 34: the key compares the step that holds a whole prefill with the target,
    so the target bounds every gap between two tokens of a stream. Under the usual
    per-request mean TPOT, t_d / (1 - lambda * P / R) (prefill steals that share of the
    time from decoding), the answer would flip from chunked-prefill or disaggregated to
    continuous in many variants, so the statement must say which TPOT it means, and
    TTFT for which requests."""
    flips = generated = 0
    for seed in range(200):
        v = Variant.from_seed("batching-policy", seed)
        p = v.params
        if p.workload != "generation":
            continue
        text = v.statement_markdown()
        assert "every gap between two consecutive output tokens" in text, seed
        assert "not the per-request average" in text, seed
        assert "every request" in text and "first output token" in text, seed
        generated += 1
        busy = p.arrival_rps * p.prompt_tokens / p.prefill_tok_s
        mean_tpot = p.decode_step_ms / (1 - busy)
        whole_prefill_step = p.decode_step_ms + p.prompt_tokens / p.prefill_tok_s * 1000
        if whole_prefill_step <= p.ttft_slo_ms and mean_tpot <= p.tpot_slo_ms:
            flips += v.parts["policy"].value in ("chunked-prefill", "disaggregated")
    assert generated and flips / generated > 0.2  # why the definition matters


def test_batching_policy_embedding_is_dynamic():
    # Fill 7 / 20 s = 350 ms > 50 ms. Dynamic: 5 ms wait + 8 x 128 / 200,000 s = 5.12 ms.
    params = _bp(
        workload="embedding",
        arrival_rps=20.0,
        batch_size=8,
        max_wait_ms=5.0,
        prompt_tokens=128,
        prefill_tok_s=200_000.0,
        output_tokens=0,
        decode_step_ms=0.0,
        ttft_slo_ms=50.0,
        tpot_slo_ms=0.0,
    )
    parts = solve("batching-policy", params)
    assert parts["fill_wait"].value == pytest.approx(350)
    assert parts["policy"].value == "dynamic"
    named = slips("batching-policy", params)
    assert named[("decode-loop-assumed", "policy")] in {
        "continuous",
        "chunked-prefill",
        "disaggregated",
    }
    assert named[("counts-own-arrival", "fill_wait")] == pytest.approx(400)


@pytest.mark.parametrize(
    "change",
    [
        {"workload": "embedding"},  # an embedding model with output tokens and a TPOT
        {"decode_step_ms": 60.0},  # a decode step longer than the TPOT target
        {"output_tokens": 0},
        {"prompt_tokens": 64000, "prefill_tok_s": 8000.0},  # 8 s prefill: nothing meets 1 s
    ],
)
def test_batching_policy_refuses_inconsistent_params(change):
    with pytest.raises(ParamError):
        Variant.from_params("batching-policy", _bp(**change))


def _expected_policy(p) -> str:
    """The simplest policy meeting the targets, recomputed from the statement's model."""
    wait = (p.batch_size - 1) / p.arrival_rps * 1000
    if p.workload == "embedding":
        batch = p.batch_size * p.prompt_tokens / p.prefill_tok_s * 1000
        if wait + batch <= p.ttft_slo_ms:
            return "static"
        return "dynamic" if p.max_wait_ms + batch <= p.ttft_slo_ms else "none"
    pre = p.prompt_tokens / p.prefill_tok_s * 1000
    if p.output_tokens * p.decode_step_ms + pre <= p.ttft_slo_ms:
        return "static or dynamic"
    if p.decode_step_ms + pre <= min(p.tpot_slo_ms, p.ttft_slo_ms):
        return "continuous"
    if pre / (1 - p.decode_step_ms / p.tpot_slo_ms) <= p.ttft_slo_ms:
        return "chunked-prefill"
    return "disaggregated" if pre <= p.ttft_slo_ms else "none"


def test_batching_policy_generator_draws_every_policy_by_the_rule():
    seen = Counter()
    for seed in range(200):
        v = Variant.from_seed("batching-policy", seed)
        assert v.parts["policy"].value == _expected_policy(v.params), seed
        # static batching never meets the target: its first request waits too long
        assert v.parts["fill_wait"].value > v.params.ttft_slo_ms, seed
        seen[v.parts["policy"].value] += 1
    assert set(seen) == {"dynamic", "continuous", "chunked-prefill", "disaggregated"}


# --- retry-amplification --------------------------------------------------------------------


def test_retry_amplification_two_retries():
    # p = 0.45, r = 2: 1 + 0.45 + 0.2025 = 1.6525 attempts; 15 x 1.6525 = 24.7875 req/s;
    # 0.45^3 = 0.091125 -> 9.1125%.
    params = {"client_rps": 15.0, "fail_pct": 45.0, "max_retries": 2}
    parts = solve("retry-amplification", params)
    assert parts["attempts"].value == pytest.approx(1.6525)
    assert parts["offered_load"].value == pytest.approx(24.7875)
    assert parts["failed"].value == pytest.approx(9.1125)
    named = slips("retry-amplification", params)
    assert named[("always-max-attempts", "attempts")] == 3
    assert named[("unbounded-retries", "attempts")] == pytest.approx(1 / 0.55)
    assert named[("linear-retries", "attempts")] == pytest.approx(1.9)
    assert named[("one-retry-only", "attempts")] == pytest.approx(1.45)
    assert named[("retries-not-counted", "offered_load")] == 15
    assert named[("always-max-attempts", "offered_load")] == pytest.approx(45)
    assert named[("retries-ignored", "failed")] == pytest.approx(45)
    assert named[("counts-retries-not-attempts", "failed")] == pytest.approx(20.25)


def test_retry_amplification_one_retry_names_no_series_slips():
    # r = 1: 1 + p is the right count, so linear-retries and one-retry-only do not apply.
    params = {"client_rps": 10.0, "fail_pct": 20.0, "max_retries": 1}
    parts = solve("retry-amplification", params)
    assert parts["attempts"].value == pytest.approx(1.2)
    assert parts["offered_load"].value == pytest.approx(12)
    assert parts["failed"].value == pytest.approx(4)
    codes = {code for code, _ in slips("retry-amplification", params)}
    assert not codes & {"linear-retries", "one-retry-only", "counts-retries-not-attempts"}


def test_retry_amplification_formula_matches_a_simulation_count():
    # The closed form equals the sum over attempts of P(attempt happens).
    t = registry.get("retry-amplification")
    for p_fail, r in ((0.3, 3), (0.6, 5), (0.1, 1)):
        p = t.parse_params({"client_rps": 1.0, "fail_pct": p_fail * 100, "max_retries": r})
        direct = sum(p_fail**k for k in range(r + 1))
        assert t.solve(p)["attempts"].value == pytest.approx(direct)
        assert t.solve(p)["attempts"].value == pytest.approx((1 - p_fail ** (r + 1)) / (1 - p_fail))


# --- cancelled-stream-waste -----------------------------------------------------------------


def test_cancelled_stream_waste_worked_case():
    # 6 req/s x 18% x (4,096 - 400) = 3,991.68 tok/s -> x 3,600 = 14.370048 Mtok/h;
    # 3,991.68 / 1,500 = 2.66112 replicas x 2 GPUs = 5.32224 GPU-h per hour;
    # 3,991.68 / (21 x 1,500) = 12.672%.
    params = {
        "request_rps": 6.0,
        "cancel_pct": 18.0,
        "streamed_tokens": 400,
        "max_tokens": 4096,
        "prompt_tokens": 6000,
        "replica_tok_s": 1500.0,
        "gpus_per_replica": 2,
        "n_replicas": 21,
    }
    parts = solve("cancelled-stream-waste", params)
    assert parts["wasted_tokens"].value == pytest.approx(14.370048)
    assert parts["gpu_hours"].value == pytest.approx(5.32224)
    assert parts["capacity_share"].value == pytest.approx(12.672)
    named = slips("cancelled-stream-waste", params)
    assert named[("streamed-counted-as-waste", "wasted_tokens")] == pytest.approx(15.925248)
    assert named[("prefill-counted", "wasted_tokens")] == pytest.approx(
        6 * 0.18 * (6000 + 3696) * 3600 / 1e6
    )
    assert named[("all-requests", "wasted_tokens")] == pytest.approx(79.8336)
    assert named[("per-second", "wasted_tokens")] == pytest.approx(0.00399168)
    assert named[("replica-hours", "gpu_hours")] == pytest.approx(2.66112)
    assert named[("cancel-share-as-capacity", "capacity_share")] == pytest.approx(18)


def test_cancelled_stream_waste_one_gpu_replicas_name_no_replica_hours():
    params = {
        "request_rps": 10.0,
        "cancel_pct": 10.0,
        "streamed_tokens": 100,
        "max_tokens": 2048,
        "prompt_tokens": 800,
        "replica_tok_s": 3000.0,
        "gpus_per_replica": 1,
        "n_replicas": 8,
    }
    # 10 x 0.1 x 1,948 = 1,948 tok/s -> 7.0128 Mtok/h; 1,948 / 3,000 = 0.649333 GPU-h.
    parts = solve("cancelled-stream-waste", params)
    assert parts["wasted_tokens"].value == pytest.approx(7.0128)
    assert parts["gpu_hours"].value == pytest.approx(1948 / 3000)
    assert parts["capacity_share"].value == pytest.approx(1948 / 24000 * 100)
    assert ("replica-hours", "gpu_hours") not in slips("cancelled-stream-waste", params)


def test_cancelled_stream_waste_refuses_leaving_after_the_end():
    params = {
        "request_rps": 10.0,
        "cancel_pct": 10.0,
        "streamed_tokens": 2048,
        "max_tokens": 2048,
        "prompt_tokens": 800,
        "replica_tok_s": 3000.0,
        "gpus_per_replica": 1,
        "n_replicas": 8,
    }
    with pytest.raises(ParamError):
        Variant.from_params("cancelled-stream-waste", params)


def test_cancelled_stream_waste_generator_stays_realistic():
    for seed in range(200):
        p = Variant.from_seed("cancelled-stream-waste", seed).params
        waste = p.request_rps * p.cancel_pct / 100 * (p.max_tokens - p.streamed_tokens)
        assert 0.03 <= waste / (p.n_replicas * p.replica_tok_s) <= 0.45, seed
        assert p.streamed_tokens * 4 <= p.max_tokens, seed
        assert math.isfinite(waste)
