"""Issue 34: every capstone reference plan is a fleet that could serve its brief.

Checked with the engine's feasibility layer directly from the brief and its reference
plan, so these tests do not trust the generator's own sizing: over seeds 0-299 the plan
needs at most 60% of its fleet's dense peak for prefill plus decode, a decode step that
reads the weights once at its tensor parallel fits the TPOT target, the p99 prompt's
prefill fits the TTFT target, and weights plus the running sequences' KV fit memory.
Each of these failed on the generator before this issue (114 of 300 briefs over 40%
of peak; B200 priced at Lambda beside AWS's H100; Mistral 7B with 28k-token prompts).
"""

from __future__ import annotations

import math

import pytest

from capstone.memo_review import brief_for
from capstone.memo_review import figures as fig
from problems.engine.feasibility import (
    COMPUTE,
    COMPUTE_CEILING,
    Device,
    Model,
    Plan,
    Slo,
    SystemDescription,
    Traffic,
    check,
    decode_floor_s,
)

SEEDS = range(300)


@pytest.fixture(scope="module")
def briefs():
    return [brief_for(seed) for seed in SEEDS]


@pytest.fixture(scope="module")
def plans(briefs):
    return [fig.best_plan(b) for b in briefs]


def _fleet(b, p) -> SystemDescription:
    cand = b.candidate(p.accelerator)
    return SystemDescription(
        model=Model.of(b.model_slug),
        device=Device.of(cand.slug),
        plan=Plan(
            replicas=p.replicas,
            tp=p.tp,
            weights_dtype=b.weight_dtype,
            kv_dtype=b.kv_dtype,
            compute_dtype=cand.dense_dtype,
            memory_fraction=b.gpu_memory_utilization,
        ),
        traffic=Traffic(
            prefill_tok_s=b.peak_rps * b.prompt_tokens_mean,
            decode_tok_s=b.peak_rps * b.output_tokens_mean,
            prompt_tokens=b.prompt_tokens_mean,
            context_tokens=b.prompt_tokens_mean + b.output_tokens_mean / 2,
        ),
        slo=Slo(tpot_s=b.tpot_ms / 1000),
    )


def test_no_reference_plan_needs_more_than_60_percent_of_its_fleets_dense_peak(briefs, plans):
    over = []
    for b, p in zip(briefs, plans, strict=True):
        v = check(_fleet(b, p), COMPUTE)
        if not v.ok:
            over.append((b.seed, round(v.need / (v.limit / COMPUTE_CEILING), 2)))
    assert not over, f"{len(over)} of {len(briefs)} over the ceiling: {over[:10]}"


def test_no_reference_plan_decodes_slower_than_its_tpot(briefs, plans):
    slow = []
    for b, p in zip(briefs, plans, strict=True):
        floor = decode_floor_s(_fleet(b, p), 0)  # the weights read once, no cache
        if floor > b.tpot_ms / 1000:
            slow.append((b.seed, p.accelerator, p.tp, round(floor * 1000, 1), b.tpot_ms))
    assert not slow, slow[:10]


def test_reference_plans_batch_within_tpot_and_prefill_within_ttft(briefs, plans):
    bad = []
    for b, p in zip(briefs, plans, strict=True):
        d = _fleet(b, p)
        batch = math.ceil(p.peak_concurrency / p.replicas)
        if decode_floor_s(d, batch) > b.tpot_ms / 1000 * (1 + 1e-9):
            bad.append((b.seed, "tpot", batch))
        m, cand = d.model, b.candidate(p.accelerator)
        prefill = b.prompt_tokens_p99 * m.flops_per_token(b.prompt_tokens_p99 / 2)
        rate = COMPUTE_CEILING * p.tp * cand.dense_tflops * 1e12
        if prefill / rate > b.ttft_p99_ms / 1000:
            bad.append((b.seed, "ttft", round(prefill / rate, 2)))
    assert not bad, bad[:10]


def test_every_brief_prices_its_candidates_at_one_provider(briefs):
    mixed = [(b.seed, sorted({c.provider for c in b.candidates})) for b in briefs]
    mixed = [m for m in mixed if len(m[1]) > 1]
    assert not mixed, f"{len(mixed)} briefs mix providers: {mixed[:5]}"
    assert len({b.candidates[0].provider for b in briefs}) >= 2  # both providers drawn


def test_a_brief_fits_its_models_trained_window(briefs):
    # Mistral 7B v0.1 was trained at 8,192 tokens (Jiang et al. 2023, Table 1); its config's
    # 32,768 positions are not a window it serves. Qwen2.5-72B-Instruct ships 32,768.
    windows = {"mistral-7b": 8192, "qwen2.5-72b": 32768}
    too_long = [
        (b.seed, b.model_slug, b.min_context, b.max_context)
        for b in briefs
        if b.model_slug in windows
        and (b.max_context != windows[b.model_slug] or b.min_context > windows[b.model_slug])
    ]
    assert not too_long, too_long[:10]
    assert any(b.model_slug == "mistral-7b" for b in briefs)


def test_every_reference_plan_passes_the_reviews_own_fleet_checks(briefs, plans):
    from capstone.memo_review import feasible

    for b, p in zip(briefs, plans, strict=True):
        cand = b.candidate(p.accelerator)
        verdicts = feasible.fleet_verdicts(b, cand, p.tp, p.replicas, p.context, p.peak_concurrency)
        assert [v.check for v in verdicts] == ["compute", "memory", "ttft", "tpot"]
        assert all(v.ok for v in verdicts), (b.seed, [str(v) for v in verdicts if not v.ok])
