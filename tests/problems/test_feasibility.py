"""The feasibility layer (problems/engine/feasibility): each check's numbers worked by hand
from the catalog's figures, the declaration a template makes, the redraws its generator
does (deterministic per seed, counted), and the sweep and CLI that hold templates to it."""

from __future__ import annotations

import io
import json
import random

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from problems.engine import registry
from problems.engine.check import check_all as sweep
from problems.engine.check import check_variant
from problems.engine.feasibility import (
    CAPACITY,
    CAPS,
    COMPUTE,
    COMPUTE_CEILING,
    DECODE_STEP,
    FABRIC,
    MEMORY,
    TPOT,
    TTFT,
    Cap,
    Device,
    Feasibility,
    InfeasibleGenerator,
    LinkLoad,
    Model,
    Plan,
    Slo,
    SystemDescription,
    Traffic,
    check,
    check_all,
    counting_redraws,
    failures,
)
from problems.engine.template import Params, Part, Template
from problems.engine.variants import Variant

N70 = 70_553_706_496  # Llama 3.1 70B
N8 = 8_030_261_248  # Llama 3.1 8B
H100_MEM = 81_559 * 2**20  # what the driver reports


def _desc(model="llama-3.1-70b", device="h200", **kw) -> SystemDescription:
    return SystemDescription(model=Model.of(model), device=Device.of(device), **kw)


def test_the_ceiling_is_sixty_percent_of_dense_peak():
    assert COMPUTE_CEILING == 0.6


def test_compute_counts_2n_per_token_against_60_percent_of_the_fleets_dense_peak():
    over = _desc(plan=Plan(tp=2), traffic=Traffic(decode_tok_s=10_000))
    v = check(over, COMPUTE)
    assert v.need == pytest.approx(2 * N70 * 10_000)
    assert v.limit == pytest.approx(0.6 * 2 * 989.4e12)
    assert not v.ok and v.ratio == pytest.approx(1.18849, rel=1e-4)
    assert "1.19x over" in v.detail and "H200" in v.detail
    assert check(_desc(plan=Plan(tp=2), traffic=Traffic(decode_tok_s=8_000)), COMPUTE).ok


def test_compute_adds_prefill_and_kaplans_attention_term():
    t = Traffic(prefill_tok_s=1_000, decode_tok_s=100, prompt_tokens=4_000, context_tokens=3_000)
    v = check(_desc(plan=Plan(replicas=2, tp=4), traffic=t), COMPUTE)
    attn = 2 * 80 * 8192  # 2 L d_attn (64 heads x 128)
    assert v.need == pytest.approx(
        1_000 * (2 * N70 + attn * 2_000) + 100 * (2 * N70 + attn * 3_000)
    )
    assert v.limit == pytest.approx(0.6 * 8 * 989.4e12)


def test_compute_runs_at_the_precision_the_plan_computes_in():
    assert Plan(weights_dtype="int4").computes_in == "bf16"  # weight-only quantisation
    assert Plan(weights_dtype="fp8").computes_in == "fp8"
    fp8 = check(
        _desc(plan=Plan(tp=2, weights_dtype="fp8"), traffic=Traffic(decode_tok_s=10_000)), COMPUTE
    )
    assert fp8.ok and fp8.limit == pytest.approx(0.6 * 2 * 1979e12)
    a100 = _desc(
        device="a100-sxm-80gb",
        plan=Plan(tp=4, weights_dtype="fp8"),
        traffic=Traffic(decode_tok_s=1),
    )
    v = check(a100, COMPUTE)
    assert not v.ok and v.limit == 0 and "does not compute in it" in v.detail


def test_decode_step_reads_weights_and_every_sequences_cache_over_hbm():
    t = Traffic(decode_tok_s=6_400, decode_batch=32, context_tokens=1_000)
    v = check(_desc("llama-3.1-8b", "h100-sxm", traffic=t), DECODE_STEP)
    floor = (N8 * 2 + 32 * 1_000 * 131_072) / 3.35e12
    assert v.need == pytest.approx(floor) and v.need == pytest.approx(6.0462e-3, rel=1e-4)
    assert v.limit == pytest.approx(32 / 6_400)
    assert not v.ok and v.ratio == pytest.approx(floor / 0.005)
    slower = Traffic(decode_tok_s=5_000, decode_batch=32, context_tokens=1_000)
    assert check(_desc("llama-3.1-8b", "h100-sxm", traffic=slower), DECODE_STEP).ok


def test_a_moe_step_reads_the_active_experts_at_batch_one_and_all_of_them_at_eight():
    def floor(batch):
        t = Traffic(decode_tok_s=1, decode_batch=batch)
        return check(_desc("mixtral-8x7b", "h100-sxm", traffic=t), DECODE_STEP).need

    assert floor(1) == pytest.approx(12_879_925_248 * 2 / 3.35e12)
    assert floor(8) == pytest.approx(46_702_792_704 * 2 / 3.35e12)


def test_memory_holds_weights_and_running_kv_within_the_engines_share():
    v = check(_desc("llama-3.1-405b", "h100-sxm", plan=Plan(tp=8)), MEMORY)
    assert v.need == pytest.approx(405_853_388_800 * 2 / 8)
    assert v.limit == pytest.approx(0.9 * H100_MEM)
    assert not v.ok
    fits = _desc(
        "llama-3.1-70b",
        "h100-sxm",
        plan=Plan(tp=4),
        traffic=Traffic(decode_batch=64, context_tokens=4_000),
    )
    v = check(fits, MEMORY)
    assert v.need == pytest.approx((N70 * 2 + 64 * 4_000 * 327_680) / 4) and v.ok


def test_capacity_ttft_tpot():
    cap = SystemDescription(
        plan=Plan(replicas=4, decode_capacity_tok_s=2_000), traffic=Traffic(decode_tok_s=8_001)
    )
    v = check(cap, CAPACITY)
    assert (v.need, v.limit, v.ok) == (8_001, 8_000, False)
    slo = Slo(ttft_s=0.5, ttft_prompt_tokens=8_000, tpot_s=0.03)
    d = _desc(plan=Plan(tp=2), slo=slo, traffic=Traffic(decode_batch=16, context_tokens=2_000))
    ttft = check(d, TTFT)
    flops = 8_000 * (2 * N70 + 2 * 80 * 8192 * 4_000)
    assert ttft.need == pytest.approx(flops / (0.6 * 2 * 989.4e12)) and not ttft.ok
    tpot = check(d, TPOT)
    assert tpot.need == pytest.approx((N70 * 2 + 16 * 2_000 * 327_680) / (2 * 4.8e12)) and tpot.ok


def test_fabric_and_caps_name_their_worst_item():
    d = SystemDescription(
        device=Device.of("h100-sxm", scale_up_domain=8),
        plan=Plan(tp=16),
        links=(LinkLoad("all_reduce busbw over NVLink 4", 400e9, 450e9),),
    )
    v = check(d, FABRIC)
    assert not v.ok and (v.need, v.limit) == (16, 8) and "scale-up domain" in v.detail
    caps = SystemDescription(caps=(Cap("a", 3, 4), Cap("user achen's GPUs", 24, 16)))
    v = check(caps, CAPS)
    assert not v.ok and v.ratio == 1.5 and "achen" in v.detail


def test_check_all_runs_what_applies_and_failures_count_a_missing_input():
    d = SystemDescription(caps=(Cap("x", 1, 2),))
    assert [v.check for v in check_all(d)] == [CAPS]
    assert failures(d, (CAPS,)) == []
    [missing] = failures(d, (COMPUTE,))
    assert missing.check == COMPUTE and not missing.ok and "no inputs" in missing.detail


def test_a_declaration_names_known_checks_only():
    with pytest.raises(ValueError, match="unknown feasibility checks"):
        Feasibility(("compute-ish",), lambda p: SystemDescription())


# --- a template that declares a check: its generator redraws, deterministically ---------


class _XParams(Params):
    x: int


def _describe(p: _XParams) -> SystemDescription:
    return SystemDescription(caps=(Cap("x under 3", p.x, 3),))


class _Declares(Template):
    slug = "declares-for-test"
    title = "Declares"
    family = "test"
    Params = _XParams
    feasibility = Feasibility((CAPS,), _describe)

    def generate(self, rng):
        return _XParams(x=rng.randint(1, 6))

    def solve(self, p):
        return {"y": Part("y", float(p.x), "GB")}

    def statement(self, p):
        return f"x is {p.x}"

    def solution(self, p):
        return "y = x"


class _Never(_Declares):
    slug = "never-for-test"

    def generate(self, rng):
        return _XParams(x=9)


def test_a_declaring_generator_redraws_from_the_same_rng():
    t = _Declares()
    drawn = [t.generate(random.Random(s)).x for s in range(200)]
    assert max(drawn) <= 3 and set(drawn) == {1, 2, 3}
    assert drawn == [t.generate(random.Random(s)).x for s in range(200)]  # per seed, fixed
    with counting_redraws() as tally:
        for s in range(200):
            t.generate(random.Random(s))
    [row] = tally.rows()
    assert row["template"] == "declares-for-test" and row["variants"] == 200
    assert row["redraws"] > 100 and row["by_check"] == {CAPS: row["redraws"]}
    with counting_redraws() as again:
        for s in range(200):
            t.generate(random.Random(s))
    assert again.rows() == tally.rows()


def test_a_generator_that_cannot_pass_is_reported_not_looped_forever():
    with pytest.raises(InfeasibleGenerator, match="never-for-test.*x under 3"):
        _Never().generate(random.Random(0))


def test_the_sweep_fails_a_variant_that_fails_its_templates_checks(monkeypatch):
    monkeypatch.setitem(registry._REGISTRY, "declares-for-test", _Declares())
    bad = Variant(_Declares(), _XParams(x=5))
    assert any(
        "infeasible, caps: x under 3" in f and "1.67x over" in f for f in check_variant(bad, 0)
    )
    report = sweep(20, ["declares-for-test"])
    assert report.ok
    assert report.redraws.rows()[0]["variants"] == 20


def test_problems_check_reports_redraws_per_template(monkeypatch):
    monkeypatch.setitem(registry._REGISTRY, "declares-for-test", _Declares())
    out = io.StringIO()
    call_command(
        "problems", "check", "--variants", "10", "--slug", "declares-for-test", "--json", stdout=out
    )
    data = json.loads(out.getvalue())
    [row] = data["redraws"]
    assert row["template"] == "declares-for-test" and row["variants"] == 10 and row["redraws"] > 0
    out = io.StringIO()
    call_command("problems", "check", "--variants", "10", "--slug", "declares-for-test", stdout=out)
    assert "declares-for-test" in out.getvalue() and "redraws over 10 variants" in out.getvalue()


def test_problems_check_exits_1_on_a_generator_that_cannot_pass(monkeypatch):
    monkeypatch.setitem(registry._REGISTRY, "never-for-test", _Never())
    with pytest.raises(CommandError) as err:
        call_command("problems", "check", "--variants", "2", "--slug", "never-for-test")
    assert err.value.returncode == 1


# --- feasibility constrains what is drawn, not what can be solved ------------------------


@pytest.mark.parametrize(
    ("slug", "params"),
    [
        (
            "cancelled-stream-waste",  # a fleet far too small for its load
            {
                "request_rps": 80,
                "cancel_pct": 10,
                "streamed_tokens": 100,
                "max_tokens": 8192,
                "prompt_tokens": 1000,
                "replica_tok_s": 2000,
                "gpus_per_replica": 1,
                "n_replicas": 2,
            },
        ),
        (
            "slurm-pending-job",  # a user already above their own cap
            {
                "gres_type": "h100",
                "states": ["allocated", "allocated", "allocated", "idle"],
                "used": [8, 8, 8, 0],
                "mine": [True, True, True, False],
                "reason": "Resources",
                "job_nodes": 2,
                "job_gpus": 8,
                "time_limit_h": 4,
                "user_gpu_limit": 16,
                "job_id": 123456,
            },
        ),
    ],
)
def test_explicit_infeasible_parameters_still_solve(slug, params):
    v = Variant.from_params(slug, params)
    assert registry.get(slug).feasibility.failures(v.params)
    assert v.parts  # solves


def test_every_declared_check_is_known_and_every_generator_passes_it():
    declaring = [t for t in registry.all_templates() if t.feasibility is not None]
    assert {"vllm-metrics-diagnosis", "slurm-pending-job", "cancelled-stream-waste"} <= {
        t.slug for t in declaring
    }
    for t in declaring:
        for seed in range(20):
            assert t.feasibility.failures(t.generate(random.Random(seed))) == [], (t.slug, seed)


def test_the_largest_decode_batch_meets_memory_and_tpot_and_one_more_does_not():
    from problems.engine.feasibility import largest_decode_batch

    traffic = Traffic(context_tokens=4_000)
    roomy = _desc("llama-3.1-70b", "h100-sxm", plan=Plan(tp=4), traffic=traffic)
    by_memory = largest_decode_batch(roomy)
    per_seq = 4_000 * 327_680
    assert by_memory == (0.9 * H100_MEM * 4 - N70 * 2) // per_seq == 127
    slo = Slo(tpot_s=0.015)
    tight = _desc("llama-3.1-70b", "h100-sxm", plan=Plan(tp=4), traffic=traffic, slo=slo)
    b = largest_decode_batch(tight)
    assert 0 < b < by_memory  # the TPOT binds first here
    assert (
        (N70 * 2 + b * per_seq) / (4 * 3.35e12)
        <= 0.015
        < (N70 * 2 + (b + 1) * per_seq) / (4 * 3.35e12)
    )
    too_small = _desc("llama-3.1-405b", "h100-sxm", plan=Plan(tp=4), traffic=traffic)
    assert largest_decode_batch(too_small) == 0
