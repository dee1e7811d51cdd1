"""The capacity-judgement family: hand-worked cases, every named slip told apart from the
answer, and variants in the ranges their docstrings promise."""

from __future__ import annotations

import pytest

from problems.engine import registry
from problems.engine.variants import Variant

pytestmark = pytest.mark.db_independent


def test_sessions_to_requests_worked_by_hand():
    t = registry.get("sessions-to-requests")
    p = t.Params(
        product=1, signed_in=20_000, active_pct=15, messages_per_hour=12, request_seconds=20
    )
    # 20,000 x 0.15 = 3,000 active users x 12 messages = 36,000 an hour = 10 req/s;
    # in flight: 10 req/s x 20 s = 200 sequences (not 3,000 active, not 20,000 signed in).
    parts = t.solve(p)
    assert parts["arrival_rate"].value == pytest.approx(10.0)
    assert parts["in_flight"].value == pytest.approx(200.0)
    slips = {(m.code, m.part): m.value for m in t.misconceptions(p)}
    assert slips[("all-users-active", "arrival_rate")] == pytest.approx(200 / 3)
    assert slips[("per-hour-as-per-second", "arrival_rate")] == pytest.approx(36_000)
    assert slips[("hour-as-minute", "arrival_rate")] == pytest.approx(600)
    assert slips[("signed-in-as-concurrent", "in_flight")] == 20_000
    assert slips[("active-users-as-sequences", "in_flight")] == pytest.approx(3_000)
    assert slips[("littles-law-inverted", "in_flight")] == pytest.approx(0.5)


def test_sessions_to_requests_grades_the_slips_by_name():
    t = registry.get("sessions-to-requests")
    p = t.Params(
        product=0, signed_in=20_000, active_pct=15, messages_per_hour=12, request_seconds=20
    )
    v = Variant(t, p)
    assert v.grade("in_flight", "200").correct
    wrong = v.grade("in_flight", "3000")
    assert not wrong.correct and wrong.misconception == "active-users-as-sequences"
    assert v.grade("arrival_rate", "36000 request/s").misconception == "per-hour-as-per-second"


def test_sessions_to_requests_variants_are_plausible_and_separated():
    t = registry.get("sessions-to-requests")
    for seed in range(200):
        v = Variant.from_seed("sessions-to-requests", seed)
        rate = v.parts["arrival_rate"].value
        assert 0.5 <= rate <= 500
        assert 3 <= v.parts["in_flight"].value <= 20_000
        for m in t.misconceptions(v.params):
            answer = v.parts[m.part].value
            assert abs(m.value - answer) > 0.02 * abs(answer), (seed, m.code)


def _stop(**over):
    t = registry.get("generation-stop")
    base = dict(
        model="llama-3.1-8b", scene=0, reason="end-of-sequence", stop=None,
        prompt_tokens=900, max_tokens=512, completion_tokens=137, request=7,
    )  # fmt: skip
    return t, t.Params(**{**base, **over})


def test_generation_stop_worked_by_hand():
    # finish_reason "stop" with stop_reason null: the model's own end token, 137 written.
    t, p = _stop()
    assert t.solve(p)["reason"].value == "end-of-sequence"
    assert t.solve(p)["output_tokens"].value == 137
    v = Variant(t, p)
    assert v.grade("reason", "stop-string").misconception == "stop-reason-null-ignored"
    assert v.grade("output_tokens", "1037").misconception == "total-as-output"
    assert v.grade("output_tokens", "512").misconception == "limit-as-output"
    # The limit: exactly max_tokens written, finish_reason "length".
    t, p = _stop(reason="max-tokens", completion_tokens=512)
    assert '"finish_reason": "length"' in t.statement(p)
    assert Variant(t, p).grade("reason", "end-of-sequence").misconception == (
        "length-read-as-finished"
    )


def test_generation_stop_refuses_impossible_responses():
    t = registry.get("generation-stop")
    with pytest.raises(ValueError):
        _stop(reason="max-tokens", completion_tokens=300)  # the limit ends at max_tokens
    with pytest.raises(ValueError):
        _stop(reason="stop-string", stop=None)  # no stop string was sent
    with pytest.raises(ValueError):
        _stop(completion_tokens=512)  # the model's end token landing on the limit: ambiguous
    assert t is not None


def test_generation_stop_answers_can_be_read_from_the_printed_response():
    """A reader of the statement's JSON finds both answers in every variant."""
    import json
    import re

    for seed in range(200):
        v = Variant.from_seed("generation-stop", seed)
        blocks = re.findall(r"```json\n(.*?)\n```", v.template.statement(v.params), re.S)
        request, response = (json.loads(b) for b in blocks)
        choice = response["choices"][0]
        if choice["finish_reason"] == "length":
            reason = "max-tokens"
        elif choice["stop_reason"] is None:
            reason = "end-of-sequence"
        else:
            assert choice["stop_reason"] in request["stop"]
            reason = "stop-string"
        assert v.parts["reason"].value == reason
        usage = response["usage"]
        assert v.parts["output_tokens"].value == usage["completion_tokens"]
        assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
        assert usage["completion_tokens"] <= request["max_tokens"]
    seen = {Variant.from_seed("generation-stop", s).parts["reason"].value for s in range(60)}
    assert seen == {"end-of-sequence", "stop-string", "max-tokens"}


def test_prefix_routing_hits_worked_by_hand():
    t = registry.get("prefix-routing-hits")
    p = t.Params(replicas=2, system_tokens=100, turns=2, message_tokens=10, answer_tokens=40)
    # Turn 1: 100 + 10 = 110 tokens, the system prompt cached. Turn 2: 100 + 50 + 10 = 160.
    # Prefix-aware: 100 + 150 = 250 cached of 270 (92.59%), 20 prefilled.
    # Round-robin: the history (50) cached half the time: 100 + 125 = 225 (83.33%), 45.
    parts = t.solve(p)
    assert parts["prefix_aware_hit"].value == pytest.approx(250 / 270 * 100)
    assert parts["round_robin_hit"].value == pytest.approx(225 / 270 * 100)
    assert parts["prefill_ratio"].value == pytest.approx(45 / 20)
    v = Variant(t, p)
    # The system prompt missed too, half the time: turn 1 50, turn 2 50 + 25; 125 / 270.
    assert v.grade("round_robin_hit", f"{125 / 270 * 100} %").misconception == (
        "shared-prefix-missed"
    )
    assert v.grade("prefill_ratio", f"{20 / 45}").misconception == "ratio-inverted"


def test_prefix_aware_routing_always_wins_and_more_replicas_hurt_round_robin():
    t = registry.get("prefix-routing-hits")
    for seed in range(100):
        v = Variant.from_seed("prefix-routing-hits", seed)
        rr, aware = v.parts["round_robin_hit"].value, v.parts["prefix_aware_hit"].value
        assert 0 < rr < aware < 100 and v.parts["prefill_ratio"].value > 1
    base = dict(system_tokens=500, turns=6, message_tokens=80, answer_tokens=250)
    hits = [t.solve(t.Params(replicas=r, **base))["round_robin_hit"].value for r in (2, 4, 8)]
    assert hits[0] > hits[1] > hits[2]


def test_number_formats_worked_by_hand():
    t = registry.get("number-formats")
    p = t.Params(accelerator="b200", tensor=0, wide="bf16", narrow="fp4")
    # 8.03e9 values x 0.5 byte = 4.015 GB; FP4 9,000 / BF16 2,250 TFLOP/s = 4.
    parts = t.solve(p)
    assert parts["size"].value == pytest.approx(4.015)
    assert parts["speedup"].value == pytest.approx(4.0)
    v = Variant(t, p)
    assert v.grade("size", "32.12 GB").misconception == "bits-as-bytes"
    assert v.grade("size", "8.03 GB").misconception == "fp4-one-byte"
    assert v.grade("speedup", "0.25").misconception == "ratio-inverted"


def test_number_formats_offers_only_what_the_part_computes():
    t = registry.get("number-formats")
    with pytest.raises(ValueError):
        t.Params(accelerator="a100-sxm-80gb", tensor=0, wide="bf16", narrow="fp8")
    with pytest.raises(ValueError):
        t.Params(accelerator="h100-sxm", tensor=0, wide="bf16", narrow="fp4")
    from hardware_db import catalog

    for seed in range(200):
        v = Variant.from_seed("number-formats", seed)
        flops = catalog.accelerator(v.params.accelerator).dense_flops
        assert v.params.wide in flops and v.params.narrow in flops
        assert v.parts["speedup"].value >= 1  # narrower never slower on these parts


def test_fusion_traffic_worked_by_hand():
    t = registry.get("fusion-traffic")
    p = t.Params(
        accelerator="h100-sxm", model="llama-3.1-8b", tokens=8192, ops=3, residual=True,
        launch_us=5,
    )  # fmt: skip
    # One tensor: 8192 x 4096 x 2 = 67,108,864 B. Bias add and GELU read one and write one
    # (2 tensors each), the residual add reads two and writes one (3): 7 tensors unfused,
    # 469.76 MB. Fused: read the input and the residual, write once: 3 tensors, 201.33 MB.
    # Saved: 4 tensors = 268.4 MB at 3.35 TB/s = 80.13 us, plus 2 launches x 5 us = 90.13.
    one = 8192 * 4096 * 2
    parts = t.solve(p)
    assert parts["unfused"].value == pytest.approx(7 * one / 1e9)
    assert parts["fused"].value == pytest.approx(3 * one / 1e9)
    assert parts["saved"].value == pytest.approx(4 * one / 3.35e12 * 1e6 + 10)
    v = Variant(t, p)
    assert v.grade("unfused", f"{3 * one / 1e9} GB").misconception == "writes-only"
    assert v.grade("unfused", f"{6 * one / 1e9} GB").misconception == "residual-read-missed"
    assert v.grade("saved", f"{4 * one / 3.35e12 * 1e6} us").misconception == "launches-ignored"


def test_loader_starvation_worked_by_hand():
    t = registry.get("loader-starvation")
    p = t.Params(
        gpus=8, per_gpu=1500, image_kb=110, storage_gbps=2, workers=32, decode_per_worker=250
    )
    # Demand 8 x 1500 = 12,000/s. Storage 2e9 / 110e3 = 18,182/s; decode 32 x 250 = 8,000/s.
    # Supply 8,000 (decode-bound): busy 8,000 / 12,000 = 66.7%.
    parts = t.solve(p)
    assert parts["demand"].value == 12_000 and parts["supply"].value == 8_000
    assert parts["busy"].value == pytest.approx(200 / 3)
    assert parts["limit"].value == "cpu-decode"
    v = Variant(t, p)
    assert v.grade("supply", "18181.8 images/s").misconception == "storage-only"
    assert v.grade("demand", "1500").misconception == "per-gpu-demand"
    assert v.grade("limit", "gpus").misconception == "gpus-blamed"
    # More storage would not help a decode-bound node; more workers would.
    faster_disk = t.solve(p.model_copy(update={"storage_gbps": 10}))
    assert faster_disk["busy"].value == pytest.approx(200 / 3)
    more_workers = t.solve(p.model_copy(update={"workers": 64}))
    # 64 x 250 = 16,000 decoded, 18,182 read: both above 12,000, the GPUs set the pace.
    assert more_workers["busy"].value == 100 and more_workers["limit"].value == "gpus"


def test_loader_starvation_draws_every_verdict():
    seen = {Variant.from_seed("loader-starvation", s).parts["limit"].value for s in range(60)}
    assert seen == {"storage", "cpu-decode", "gpus"}


def test_power_cap_efficiency_worked_by_hand():
    t = registry.get("power-cap-efficiency")
    p = t.Params(
        accelerator="h100-sxm", model=0, default_watts=650, cap_watts=500,
        default_tps=20_000, capped_tps=18_400,
    )  # fmt: skip
    # Power: 1 - 500/650 = 23.08%. Speed: 1 - 18,400/20,000 = 8%.
    # Tokens/J: (18,400/500) / (20,000/650) - 1 = 36.8 / 30.77 - 1 = 19.6%.
    parts = t.solve(p)
    assert parts["power_saved"].value == pytest.approx(100 * 150 / 650)
    assert parts["speed_lost"].value == pytest.approx(8.0)
    assert parts["efficiency_gain"].value == pytest.approx((36.8 / (20_000 / 650) - 1) * 100)
    v = Variant(t, p)
    assert v.grade("speed_lost", f"{100 * 150 / 650} %").misconception == "linear-power-speed"
    assert v.grade("power_saved", f"{100 * 200 / 700} %").misconception == "tdp-as-draw"
    with pytest.raises(ValueError):  # a cap that loses more speed than power: not measured
        t.Params(accelerator="h100-sxm", model=0, default_watts=650, cap_watts=500,
                 default_tps=20_000, capped_tps=14_000)  # fmt: skip


def test_spec_decode_metrics_worked_by_hand():
    t = registry.get("spec-decode-metrics")
    p = t.Params(
        target="llama-3.1-70b", draft_dtype="bf16", k=4, drafts_before=1_000_000,
        accepted_before=2_000_000, drafts=100_000, accepted=240_000,
    )  # fmt: skip
    # Window: 100,000 drafts, 400,000 draft tokens, 240,000 accepted: 60%; length 3.4;
    # draft Llama 3.1 8B: 8.03e9 x 2 B = 16.06 GB.
    parts = t.solve(p)
    assert parts["acceptance_rate"].value == pytest.approx(60.0)
    assert parts["acceptance_length"].value == pytest.approx(3.4)
    assert parts["draft_memory"].value == pytest.approx(16.06, rel=1e-3)
    v = Variant(t, p)
    # Not differenced: 2.24e6 / (1.1e6 x 4) = 50.9%.
    assert v.grade("acceptance_rate", f"{2.24e6 / 4.4e6 * 100} %").misconception == (
        "counters-not-differenced"
    )
    assert v.grade("acceptance_length", "2.4").misconception == "bonus-token-missed"
    fp8 = t.solve(p.model_copy(update={"draft_dtype": "fp8"}))
    assert fp8["draft_memory"].value == pytest.approx(8.03, rel=1e-3)


def test_spec_decode_metrics_can_be_read_from_the_scrapes():
    import re

    for seed in range(100):
        v = Variant.from_seed("spec-decode-metrics", seed)
        text = v.template.statement(v.params)
        values = {}
        blocks = text.split("# start")[1].split("# end")
        for when, block in zip(("start", "end"), blocks, strict=True):
            for name, value in re.findall(r"vllm:(\w+)\{[^}]*\} (\S+)", block):
                values[(when, name)] = float(value)
        d = {n: values[("end", n)] - values[("start", n)] for _, n in values}
        rate = d["spec_decode_num_accepted_tokens_total"] / d["spec_decode_num_draft_tokens_total"]
        length = 1 + d["spec_decode_num_accepted_tokens_total"] / d["spec_decode_num_drafts_total"]
        assert v.parts["acceptance_rate"].value == pytest.approx(rate * 100, rel=1e-9)
        assert v.parts["acceptance_length"].value == pytest.approx(length, rel=1e-9)
