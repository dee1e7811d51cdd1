"""review_memo: full marks for a correct memo, planted mistakes caught with the expected
figure and the engine's misconception code, and the same input always the same review."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from capstone.memo_review import Review, brief_for, example_memo, review_memo
from capstone.memo_review import figures as fig
from capstone.memo_review.checks import COST_REL_TOL


def _set(text: str, label: str, value: str) -> str:
    """The memo with one Key figures line replaced."""
    new, n = re.subn(rf"^- {re.escape(label)}: .*$", f"- {label}: {value}", text, flags=re.M)
    assert n == 1, label
    return new


def _seed(condition) -> int:
    return next(s for s in range(300) if condition(brief_for(s), fig.best_plan(brief_for(s))))


def test_the_example_memo_gets_full_marks_for_100_seeds():
    for seed in range(100):
        brief = brief_for(seed)
        review = review_memo(brief, example_memo(brief))
        lost = [(c.code, c.comment) for c in review.criteria if c.points != c.max_points]
        assert review.score == review.max_score == 34, (seed, lost)
        assert all(c.misconception is None for c in review.criteria)


def test_the_example_memo_gets_full_marks_on_every_candidate():
    for seed in range(10):
        brief = brief_for(seed)
        for cand in brief.candidates:
            review = review_memo(brief, example_memo(brief, accelerator=cand.slug))
            assert review.score == review.max_score, (seed, cand.slug)


def test_arithmetic_error_and_gb_gib_slip_are_both_flagged_with_the_right_figures():
    for seed in range(30):
        brief = brief_for(seed)
        plan = fig.best_plan(brief)
        text = example_memo(brief, mistakes=("arithmetic", "gb-vs-gib"))
        review = review_memo(brief, text)
        weights = review.criterion("weights")
        assert (weights.points, weights.misconception) == (0, "gb-vs-gib")
        assert f"Expected {plan.weights_gb:.4g} GB" in weights.comment
        assert f"{plan.weights_gb * 1e9 / 2**30:.4g} GB" in weights.evidence
        replicas = review.criterion("replicas")
        assert replicas.points == 0
        assert f"Expected at least {plan.replicas}:" in replicas.comment
        short = (plan.replicas - 1) * plan.batch < plan.peak_concurrency
        if plan.binding != "compute":
            # The engine names the slip: one replica short of ceil(L / C) is floor(L / C).
            expected_code = plan.variant("little").grade("replicas", str(plan.replicas - 1))
            assert replicas.misconception == expected_code.misconception
        else:
            assert "at 60% of their dense peak" in replicas.comment
        cost = review.criterion("monthly-cost")
        # A replica short of 52 or more is within the cost's 2% tolerance of the floor's.
        cost_off = 1 / plan.replicas > COST_REL_TOL
        assert cost.points == 2 * (not cost_off)
        assert cost_off == (f"Expected USD {plan.cost:,.0f}" in cost.comment)
        consistency = review.criterion("consistency")
        assert consistency.points == 4 - short
        assert short == ("below the stated peak" in consistency.comment)
        # One replica short of the floor is a fleet that cannot serve the peak.
        feasibility = review.criterion("feasibility")
        assert feasibility.points == 0 and feasibility.comment.startswith("Fails the ")
        assert review.score == 34 - 2 - 2 - 1 - 2 * cost_off - short - 3


def test_hand_checked_review_of_seed_2():
    # Seed 2: Mistral 7B v0.1 BF16 chat assistant on B200s (Lambda), 34.72 requests/s at
    # the peak, 2,500-token prompts and 200-token outputs on average, 13 s per slot.
    # Weights 7,241,732,096 x 2 B = 14.48 GB (13.49 GiB). Memory holds 354 sequences of
    # 7,000 tokens on one B200, so 451.4 in flight need 2 replicas. Compute: a prefill
    # token costs 2 x 7.24e9 + 2 x 32 layers x 1,250 x 4,096 = 14.81 GFLOP, a decode token
    # (2,600 tokens cached) 15.16 GFLOP: 34.72 x (2,500 x 14.81e9 + 200 x 15.16e9) = 1.39
    # PFLOP/s, 1.03x the 60% of one B200's 2.25 PFLOP/s BF16 peak. One replica fails.
    brief = brief_for(2)
    plan = fig.best_plan(brief)
    assert (plan.accelerator, plan.tp, plan.seqs, plan.replicas) == ("b200", 1, 354, 2)
    review = review_memo(brief, example_memo(brief, mistakes=("arithmetic", "gb-vs-gib")))
    assert review.criterion("weights").evidence == "Weights: 13.49 GB"
    assert review.criterion("weights").comment.startswith("Expected 14.48 GB (BF16).")
    assert review.criterion("replicas").misconception == "floor-not-ceil"
    assert review.criterion("replicas").comment.endswith("(floor-not-ceil)")
    assert review.criterion("weights").comment.endswith("(gb-vs-gib)")
    assert "Expected USD 9,767 (2 GPUs x USD 6.69" in review.criterion("monthly-cost").comment
    feasibility = review.criterion("feasibility").comment
    assert feasibility.startswith("Fails the compute (at most 60% of the fleet's dense peak)")
    assert "1.03x over" in feasibility


def test_a_cost_not_matching_gpus_times_price_is_flagged():
    brief = brief_for(4)
    review = review_memo(brief, example_memo(brief, mistakes=("cost-arithmetic",)))
    assert review.criterion("monthly-cost").points == 0
    assert "x 730 = USD" in review.criterion("consistency").comment
    assert review.score == 34 - 2 - 1


def test_cost_named_when_hourly_or_instance_priced():
    brief = brief_for(6)
    plan = fig.best_plan(brief)
    text = example_memo(brief)
    hourly = review_memo(brief, _set(text, "Monthly cost", f"{plan.cost / 730:.2f} USD"))
    assert hourly.criterion("monthly-cost").misconception == "hourly-not-monthly"


def test_other_engine_misconceptions_are_named():
    brief = brief_for(3)
    plan = fig.best_plan(brief)
    text = example_memo(brief)
    half_kv = review_memo(brief, _set(text, "KV per token", f"{plan.kv_kib / 2:g} KiB"))
    assert half_kv.criterion("kv-per-token").misconception == "missing-kv-factor-2"
    kb = review_memo(brief, _set(text, "KV per token", f"{plan.kv_kib * 1024 / 1000:.4g} KiB"))
    assert kb.criterion("kv-per-token").misconception == "gb-vs-gib"
    gib = review_memo(brief, _set(text, "Weights", f"{plan.weights_gb * 1e9 / 2**30:.4g} GiB"))
    assert gib.criterion("weights").points == 2  # the right size, in the unit it names


def test_missing_sections_are_flagged_by_name():
    brief = brief_for(8)
    review = review_memo(brief, example_memo(brief, mistakes=("missing-section",)))
    sections = review.criterion("sections")
    assert (sections.points, sections.comment) == (3, "Missing section: Demand.")
    bare = review_memo(brief, "## Key figures\n\n- Replicas: 3\n")
    assert bare.criterion("sections").points == 0
    assert bare.criterion("measurement-plan").points == 0
    assert "missing" in bare.criterion("failure-test").comment


def test_vague_plans_are_flagged():
    brief = brief_for(9)
    review = review_memo(brief, example_memo(brief, mistakes=("vague-measurement",)))
    measure = review.criterion("measurement-plan")
    assert measure.points == 0 and measure.comment.startswith("missing: the tool")
    assert "the rule that decides pass or fail" in measure.comment and measure.evidence == ""
    review = review_memo(brief, example_memo(brief, mistakes=("vague-failure-test",)))
    assert review.criterion("failure-test").points == 0
    measure = review.criterion("measurement-plan")
    assert measure.points == 3 and measure.comment.startswith("Concrete")
    for found in ("tool: vLLM", "requests/s", "SLO thresholds: TTFT", "rule: Pass if"):
        assert found in measure.evidence


def _plan_review(text: str):
    brief = brief_for(9)
    memo = example_memo(brief).replace(
        example_memo(brief).split("## Measurement plan\n\n")[1].split("\n\n## ")[0], text
    )
    return review_memo(brief, memo).criterion("measurement-plan")


# {peak}: the brief's peak requests/s; {ttft} and {tpot}: its SLO in ms.
@pytest.mark.parametrize(
    ("text", "points", "missing"),
    [
        # The plan: tool, rate, threshold and rule in 15 words scored 0/3 for length.
        ("Run guidellm at {peak} req/s; pass if p99 TTFT < {ttft} ms and TPOT < {tpot} ms.", 3, ""),
        ("k6 at 100% of the peak; TTFT p99 under {ttft} ms, TPOT under {tpot} ms.", 2, "pass or"),
        ("We will benchmark the replicas and see how fast they are, then decide.", 0, "load"),
        # Padding is not content: a long text naming none of the four scores nothing.
        (" ".join(["We will carefully observe the service and think about it."] * 6), 0, "tool"),
        # Concrete but wrong for this brief: half the peak, a looser TTFT bar.
        ("guidellm at {half} req/s; pass if TTFT p99 < {ttft} ms, TPOT < {tpot} ms.", 2, "below"),
        (
            "guidellm at {peak} req/s; pass if TTFT p99 < {loose} ms, TPOT < {tpot} ms.",
            2,
            "TTFT at",
        ),
        ("guidellm at {peak} req/s; pass if TTFT p99 < {ttft} ms.", 2, "no TPOT threshold"),
    ],
)
def test_plans_are_judged_by_content_not_length(text, points, missing):
    brief = brief_for(9)
    measure = _plan_review(
        text.format(
            peak=f"{brief.peak_rps * 1.01:.4g}",
            half=f"{brief.peak_rps / 2:.3g}",
            ttft=brief.ttft_p99_ms,
            loose=brief.ttft_p99_ms * 2,
            tpot=brief.tpot_ms,
        )
    )
    assert measure.points == points, measure.comment
    assert missing in measure.comment


def test_one_replica_may_carry_its_share_of_the_peak():
    brief = brief_for(9)
    replicas = int(fig.best_plan(brief).replicas)
    share = brief.peak_rps / replicas
    text = "Load one replica with guidellm at {r} req/s; pass if TTFT p99 < {t} ms, TPOT < {p} ms."
    ok = _plan_review(text.format(r=f"{share:.4g}", t=brief.ttft_p99_ms, p=brief.tpot_ms))
    assert ok.points == 3, ok.comment
    short = _plan_review(text.format(r=f"{share * 0.8:.4g}", t=brief.ttft_p99_ms, p=brief.tpot_ms))
    assert short.points == 2 and f"for one of {replicas} replicas" in short.comment


def _failure_review(text: str):
    brief = brief_for(9)
    memo = example_memo(brief).replace(
        example_memo(brief).split("## Failure-case test\n\n")[1].split("\n\n## ")[0], text
    )
    return review_memo(brief, memo).criterion("failure-test")


@pytest.mark.parametrize(
    ("text", "points", "missing"),
    [
        ("Kill one replica at peak; the rest absorb it. Pass if TTFT p99 < 2000 ms.", 3, ""),
        ("Inject Xid 79 on a GPU and fail if the error rate goes above 1%.", 2, "behaviour"),
        ("We will test failures later and pass if TTFT p99 < 2000 ms.", 1, "the fault"),
        ("Drain a node; traffic is rerouted and the error rate stays under 0.1%.", 2, "the rule"),
    ],
)
def test_a_failure_test_names_its_fault_and_the_behaviour_expected(text, points, missing):
    failure = _failure_review(text)
    assert failure.points == points, failure.comment
    assert missing in failure.comment


def test_inconsistent_gpus_are_flagged():
    brief = brief_for(10)
    plan = fig.best_plan(brief)
    review = review_memo(brief, _set(example_memo(brief), "GPUs", str(plan.gpus + 1)))
    assert review.criterion("gpus").points == 0
    assert f"Expected {plan.gpus}" in review.criterion("gpus").comment
    consistency = review.criterion("consistency")
    assert consistency.points == 2  # GPUs != replicas x TP, and cost != GPUs x price x 730
    assert f"is not {plan.replicas} replicas x {plan.tp}" in consistency.comment


def test_tensor_parallel_below_the_minimum_for_the_weights_is_flagged():
    seed = _seed(lambda b, p: p.tp_min >= 2)
    brief = brief_for(seed)
    plan = fig.best_plan(brief)
    text = _set(example_memo(brief), "Tensor parallel", str(plan.tp_min // 2))
    review = review_memo(brief, text)
    tp = review.criterion("tensor-parallel")
    assert tp.points == 0 and f"Expected at least {plan.tp_min}" in tp.comment
    assert "do not fit" in review.criterion("consistency").comment


def test_a_non_candidate_accelerator_cannot_be_checked_further():
    brief = brief_for(11)
    review = review_memo(brief, _set(example_memo(brief), "Accelerator", "TPU v5e"))
    assert review.criterion("accelerator").points == 0
    assert "Choose one of" in review.criterion("accelerator").comment
    for code in ("seqs-per-replica", "replicas", "gpus", "monthly-cost"):
        assert review.criterion(code).comment.startswith("Cannot be checked"), code
    assert review.criterion("weights").points == 2  # independent of the choice


def test_context_shorter_than_the_p99_request_is_flagged():
    brief = brief_for(12)
    text = _set(example_memo(brief), "Context per sequence", str(brief.min_context - 1))
    context = review_memo(brief, text).criterion("context")
    assert context.points == 0 and f"{brief.min_context:,}" in context.comment


def test_unreadable_figures_and_code_are_just_unreadable(tmp_path):
    brief = brief_for(13)
    target = tmp_path / "pwned"
    text = _set(example_memo(brief), "Replicas", f"__import__('os').system('touch {target}')")
    text = _set(text, "Weights", "about a hundred GB")
    review = review_memo(brief, text)
    assert review.criterion("replicas").points == 0
    assert review.criterion("replicas").comment.startswith("Could not read the value")
    assert review.criterion("weights").comment.startswith("Could not read the value")
    assert not target.exists()


def test_same_input_same_review_and_json_round_trip():
    brief = brief_for(14)
    text = example_memo(brief, mistakes=("arithmetic", "gb-vs-gib", "vague-measurement"))
    first, second = review_memo(brief, text), review_memo(brief_for(14), text)
    assert first == second and first.as_dict() == second.as_dict()
    data = json.loads(json.dumps(first.as_dict()))
    assert Review.from_dict(data) == first
    assert data["score"] == sum(c["points"] for c in data["criteria"])


def test_unknown_mistake_is_refused():
    with pytest.raises(ValueError, match="unknown mistakes"):
        example_memo(brief_for(0), mistakes=("typo",))


def test_criteria_codes_and_points():
    review = review_memo(brief_for(0), example_memo(brief_for(0)))
    assert [(c.code, c.max_points) for c in review.criteria] == [
        ("sections", 4),
        ("accelerator", 1),
        ("tensor-parallel", 2),
        ("context", 1),
        ("weights", 2),
        ("kv-per-token", 2),
        ("seqs-per-replica", 2),
        ("peak-concurrency", 2),
        ("replicas", 2),
        ("gpus", 1),
        ("monthly-cost", 2),
        ("feasibility", 3),
        ("consistency", 4),
        ("measurement-plan", 3),
        ("failure-test", 3),
    ]
    assert sum(c.max_points for c in review.criteria) == 34


@pytest.mark.parametrize(
    "value",
    ["0", "-1", "1e30", "64", "3", "1e-30", "0.5", "16", "100000000000", "7 GB", "$5", "x"],
)
def test_odd_figure_values_never_crash_the_review(value):
    brief = brief_for(15)
    text = example_memo(brief)
    for label in (
        "Tensor parallel",
        "Context per sequence",
        "Weights",
        "KV per token",
        "Concurrent sequences per replica",
        "Peak concurrent sequences",
        "Replicas",
        "GPUs",
        "Monthly cost",
    ):
        review = review_memo(brief, _set(text, label, value))
        assert 0 <= review.score <= review.max_score, label
        assert len(review.criteria) == 15


def test_the_package_is_pure_no_django_imported():
    import subprocess
    import sys

    code = (
        "import sys, capstone.memo_review as m; b = m.brief_for(2); "
        "m.review_memo(b, m.example_memo(b)); "
        "sys.exit(any(k == 'django' or k.startswith('django.') for k in sys.modules))"
    )
    env = {"PATH": "/usr/bin:/bin"}
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=root, check=False)  # noqa: S603
    assert done.returncode == 0


def _failing(review) -> str:
    return review.criterion("feasibility").comment


@pytest.mark.parametrize(
    ("check", "change"),
    [
        ("ttft", {"ttft_p99_ms": 50}),  # no replica prefills a p99 prompt in 50 ms
        ("tpot", {"tpot_ms": 2}),  # no GPU reads the weights in 2 ms
    ],
)
def test_the_feasibility_check_names_the_one_latency_target_a_fleet_misses(check, change):
    for seed in range(6):
        brief = dataclasses.replace(brief_for(seed), **change)
        text = example_memo(brief_for(seed))  # the plan for the brief's real targets
        review = review_memo(brief, text)
        comment = _failing(review)
        assert comment.startswith(f"Fails the {check.upper()} ("), (seed, comment)
        assert "Also fails" not in comment, (seed, comment)
        assert review.criterion("feasibility").points == 0


def test_a_fleet_sized_by_memory_alone_fails_compute_where_compute_sets_the_fleet():
    bound = [s for s in range(40) if fig.best_plan(brief_for(s)).binding == "compute"]
    assert len(bound) >= 5
    for seed in bound[:5]:
        brief = brief_for(seed)
        plan = fig.best_plan(brief)
        review = review_memo(brief, example_memo(brief, mistakes=("memory-only-fleet",)))
        comment = _failing(review)
        assert comment.startswith("Fails the compute (at most 60% of the fleet's dense peak)")
        assert "Also fails" not in comment
        replicas = review.criterion("replicas")
        assert replicas.points == 0
        assert f"need {plan.replicas_compute} replicas of {plan.tp} GPUs" in replicas.comment
        # Everything else in that memo is right: it loses the fleet's points and no more.
        lost = {c.code for c in review.criteria if c.points < c.max_points}
        assert lost == {"replicas", "gpus", "monthly-cost", "feasibility"}, (seed, lost)


def test_too_few_replicas_for_memory_fail_the_memory_check():
    brief = brief_for(1)  # 7,176 sequences in flight, 305 per 4 x A100 replica: 24 replicas
    plan = fig.best_plan(brief)
    assert plan.binding == "memory"
    text = _set(example_memo(brief), "Replicas", str(plan.replicas // 2))
    comment = _failing(review_memo(brief, text))
    assert comment.startswith("Fails the memory (weights and the running sequences'"), comment


def test_the_feasibility_check_needs_the_fleet_it_checks():
    brief = brief_for(5)
    text = example_memo(brief)
    for label, value in (("Replicas", "none"), ("Tensor parallel", "0"), ("Accelerator", "TPU")):
        criterion = review_memo(brief, _set(text, label, value)).criterion("feasibility")
        assert criterion.points == 0 and criterion.comment.startswith("Cannot be checked")
