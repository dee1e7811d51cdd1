"""Every variant a system that could exist (issue 34): the generators whose variants
described impossible systems, each tested over seeds 0-299 with arithmetic written here
from the catalog (not the feasibility module's), so the test cannot share a bug with the
check it guards. Each test failed on the generator before the fix (figures in the
docstrings)."""

from __future__ import annotations

import random

from hardware_db import catalog
from problems.engine import registry

SEEDS = range(300)


def _draw(slug: str):
    t = registry.get(slug)
    return [(seed, t.generate(random.Random(seed))) for seed in SEEDS]


def test_no_slurm_user_runs_more_gpus_than_their_own_cap():
    """Slurm enforces MaxTRESPerUser when a job starts, so a user's running GPUs never
    exceed it. Before: 22 of 300 variants (seeds 13, 16, 36, ...) showed a user above it."""
    over = [
        seed
        for seed, p in _draw("slurm-pending-job")
        if sum(u for u, m in zip(p.used, p.mine, strict=True) if m) > p.user_gpu_limit
    ]
    assert over == []


def _vllm_figures(p):
    from problems.templates.incidents._vllm import BLOCK, DEPLOYMENTS

    slug, _, acc_slug, tp = DEPLOYMENTS[p.deployment]
    model, acc = catalog.model(slug), catalog.accelerator(acc_slug)
    gen = (p.generation_tokens[1] - p.generation_tokens[0]) / p.interval_s
    prompt = (p.prompt_tokens[1] - p.prompt_tokens[0]) / p.interval_s
    flops = 2 * model.active_params * (gen + prompt)
    peak = tp * acc.dense_flops["bf16"]
    running = max(p.running)
    kv = max(p.blocks_used) * BLOCK * model.kv_bytes_per_token(2)
    weights = min(model.total_params, running * model.active_params) * 2
    floor_s = (weights + kv) / (tp * acc.mem_bw_bytes_per_s)
    step_s = sum(p.running) / 2 / gen  # each running sequence gains a token per step
    return flops / peak, floor_s / step_s


def test_no_vllm_scrape_implies_more_than_the_gpus_dense_peak():
    """Prompt plus generated tokens between the scrapes, at 2 N_active FLOP each, within
    the GPUs' dense BF16 peak. Before: 36 of 300 scrapes were above it (seed 9, 70B on
    2 x H200, at 4.7x)."""
    over = [
        (seed, round(r, 2))
        for seed, p in _draw("vllm-metrics-diagnosis")
        if (r := _vllm_figures(p)[0]) > 1
    ]
    assert over == []


def test_no_vllm_scrape_decodes_faster_than_hbm_allows():
    """A decode step reads the weights and every running sequence's cache, so the step the
    counters imply is no shorter than that read over HBM. Before: 36 of 300 scrapes
    (Llama 3.1 8B on one L40S, up to 2.1x) decoded faster."""
    over = [
        (seed, round(r, 2))
        for seed, p in _draw("vllm-metrics-diagnosis")
        if (r := _vllm_figures(p)[1]) > 1
    ]
    assert over == []


def test_no_cancelled_stream_fleet_is_smaller_than_its_load():
    """Every answer runs to max_tokens (the statement says so), so the engine decodes
    lambda x M tokens/s, which n replicas of T tok/s must carry. Before: 130 of 300
    fleets could not."""
    over = [
        seed
        for seed, p in _draw("cancelled-stream-waste")
        if p.request_rps * p.max_tokens > p.n_replicas * p.replica_tok_s
    ]
    assert over == []


def _named_parts(p):
    from problems.templates._common import matching_accelerators

    if hasattr(p, "mem_bw_tbps"):
        return matching_accelerators(mem_bw_tbps=p.mem_bw_tbps)
    return matching_accelerators(peak_tflops=p.peak_tflops)


def _over_memory(slug: str) -> list:
    from problems.engine.numbers import BYTES_PER_ELEMENT

    over = []
    for seed, p in _draw(slug):
        hits = _named_parts(p)
        dtype = getattr(p, "weight_dtype", None) or hits[0][1] or "bf16"
        need = p.n_params * BYTES_PER_ELEMENT[dtype]
        if hasattr(p, "batch_size"):
            kv = 2 * p.n_layers * p.n_kv_heads * p.head_dim * BYTES_PER_ELEMENT[p.kv_dtype]
            need += p.batch_size * p.context_tokens * kv
        over += [(seed, a.slug) for a, _ in hits if need / p.n_gpus > 0.9 * a.usable_bytes]
    return over


def test_every_serving_part_a_statement_names_holds_the_deployment():
    """Statements name every part whose figure matches (H100 / H200 for an FP8 peak);
    the weights (and a batched step's cache) must fit each within 90% of its memory.
    Before: 2 of 300 decode-tpot-floor, 5 decode-step-batched, 15 prefill-time and 12
    prefix-cache-ttft variants named a part they do not fit (405B BF16 on 4 Gaudi 3)."""
    for slug in ("decode-tpot-floor", "decode-step-batched", "prefill-time", "prefix-cache-ttft"):
        assert _over_memory(slug) == [], slug
