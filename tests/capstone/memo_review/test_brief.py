"""The capstone brief: the same seed gives the same brief, and every brief is one a
senior ML-infra engineer would accept (checked over 200 seeds)."""

from __future__ import annotations

import json

import pytest

from capstone.memo_review import brief_for
from capstone.memo_review import figures as fig
from capstone.memo_review.brief import Brief, window
from hardware_db import catalog, prices
from problems.engine.render import render_markdown

SEEDS = range(200)


@pytest.fixture(scope="module")
def briefs() -> list[Brief]:
    return [brief_for(seed) for seed in SEEDS]


def test_same_seed_same_brief(briefs):
    for seed in (0, 1, 17, 199):
        again = brief_for(seed)
        assert again == briefs[seed]
        assert again.as_dict() == briefs[seed].as_dict()
        assert again.markdown() == briefs[seed].markdown()


def test_seeds_give_varied_briefs(briefs):
    assert len({b.model_slug for b in briefs}) >= 3
    assert len({b.workload for b in briefs}) == 3
    assert len({c.slug for b in briefs for c in b.candidates}) >= 4
    assert {b.weight_dtype for b in briefs} == {"bf16", "fp8"}
    assert len({b.as_dict()["sessions_per_day"] for b in briefs}) >= 8


def test_models_are_dense_catalog_models_of_realistic_size(briefs):
    for b in briefs:
        m = catalog.model(b.model_slug)
        assert m.arch_type == "dense" and m.kv_lora_rank is None
        assert 6e9 <= b.n_params == m.total_params <= 80e9
        assert (b.n_layers, b.n_kv_heads, b.head_dim) == (m.n_layers, m.n_kv_heads, m.head_dim)
        assert b.n_heads == m.n_heads
        assert b.max_context == window(m) <= m.max_context
        assert b.min_context == b.prompt_tokens_p99 + b.output_tokens_p99 <= b.max_context


def test_traffic_and_slo_are_realistic(briefs):
    for b in briefs:
        assert 5_000 <= b.sessions_per_day <= 2_000_000
        assert 2 <= b.messages_per_session <= 40
        assert 2 <= b.peak_to_average <= 5
        assert b.prompt_tokens_mean < b.prompt_tokens_p99 <= 28_000
        assert b.output_tokens_mean < b.output_tokens_p99 <= 3_000
        assert 800 <= b.ttft_p99_ms <= 3_000 and 20 <= b.tpot_ms <= 70
        assert 0.85 <= b.gpu_memory_utilization <= 0.92
        assert 0.2 <= b.kv_reserve_fraction <= 0.3
        # A request's slot time stays within a chat or coding session's reach.
        assert 4 <= b.slot_seconds <= 40


def test_candidates_are_priced_catalog_parts_that_can_serve_the_model(briefs):
    for b in briefs:
        assert 2 <= len(b.candidates) <= 3
        assert len({c.slug for c in b.candidates}) == len(b.candidates)
        for c in b.candidates:
            acc = catalog.accelerator(c.slug)
            price = next(
                p for p in prices.prices_for(c.slug) if p.provider == b.candidates[0].provider
            )
            assert c.usable_gib == acc.usable_gib and c.name == acc.short_name
            assert c.usd_per_gpu_hour == price.usd_per_gpu_hour
            assert c.price_source == price.source and c.price_as_of == price.as_of.isoformat()
            if "fp8" in (b.weight_dtype, b.kv_dtype):
                assert "fp8" in acc.dense_flops, (b.seed, c.slug)
            plan = fig.best_plan(b, c.slug)  # raises if the part cannot hold the model
            assert plan.tp_min <= plan.tp <= b.tp_limit(c)
            assert plan.ttft_ok and 1 <= plan.batch <= min(plan.seqs, plan.seqs_tpot)


def test_the_cheapest_fleet_is_a_realistic_size(briefs):
    for b in briefs:
        plan = fig.best_plan(b)
        assert 2 <= plan.replicas <= 400
        assert plan.gpus == plan.replicas * plan.tp
        assert plan.seqs >= 1
        assert plan.replicas >= plan.replicas_compute
        assert plan.replicas * plan.batch >= plan.peak_concurrency


def test_as_dict_is_json_and_round_trips(briefs):
    for b in briefs[:50]:
        data = json.loads(json.dumps(b.as_dict()))
        assert Brief.from_dict(data) == b
        assert data["derived"]["min_context_tokens"] == b.min_context
        assert data["derived"]["hours_per_month"] == 730


def test_markdown_names_the_figures_and_the_price_sources(briefs):
    for b in briefs[:40]:
        text = b.markdown()
        assert "$" not in text  # the renderer would read it as maths
        assert b.model_name in text and f"{b.sessions_per_day:,}" in text
        for c in b.candidates:
            assert c.slug in text and c.price_as_of in text
            assert all(s in text for s in c.price_source)
        assert "<table>" in render_markdown(text)


def test_hand_checked_demand_for_one_brief():
    b = brief_for(1)
    # Seed 1: Llama 3.1 8B chat assistant, 1,000,000 sessions x 10 messages / 86,400 s
    # = 115.74 requests/s; x 2.5 peak = 289.35; slot = 0.8 s + 400 x 0.06 s = 24.8 s.
    assert (b.model_slug, b.sessions_per_day, b.messages_per_session) == (
        "llama-3.1-8b",
        1_000_000,
        10,
    )
    assert b.peak_rps == pytest.approx(289.35, rel=1e-4)
    assert b.slot_seconds == pytest.approx(24.8)
    assert fig.best_plan(b).peak_concurrency == pytest.approx(289.35 * 24.8, rel=1e-4)


def test_candidates_are_found_by_slug_name_or_a_unique_short_name():
    b = brief_for(24)  # L40S and A100 SXM4 80GB
    assert [c.slug for c in b.candidates] == ["l40s", "a100-sxm-80gb"]
    for text in ("l40s", "L40S", "NVIDIA L40S", "`l40s`"):
        assert b.candidate(text).slug == "l40s", text
    for text in ("A100 SXM4 80GB", "a100-sxm-80gb", "A100", "NVIDIA A100 80GB"):
        assert b.candidate(text).slug == "a100-sxm-80gb", text
    for text in ("H100", "", "TPU v5e", "80GB GPU"):
        assert b.candidate(text) is None, text


def test_candidates_are_named_as_engineers_name_them(briefs):
    # The catalog's record label ("B200 (HGX B200, per GPU)") is not a part's name.
    for b in briefs:
        for c in b.candidates:
            assert "(" not in c.name and "per GPU)" not in b.markdown(), (b.seed, c.name)
