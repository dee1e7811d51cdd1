"""The one grade function (pure: no database)."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from problems.engine import units
from problems.engine.grading import GradeResult, _within_tolerance, grade_part, normalise_choice
from problems.engine.template import FactorHints, Kind, Misconception, Part
from problems.engine.tolerance import Estimate, Exact, RelAbs, SigFigs

WEIGHTS = Part("weights", 80.5306368, "GB")  # 75 GiB, in GB
CONTRACT_KEYS = {
    "slug",
    "part",
    "valid",
    "correct",
    "score",
    "parsed",
    "misconception",
    "feedback",
}


def test_correct_bare_number():
    g = grade_part(WEIGHTS, "80.53")
    assert (g.valid, g.correct, g.score, g.misconception) == (True, True, 1.0, None)
    assert g.feedback == "Correct."
    assert (g.parsed_value, g.parsed_unit) == (80.53, "GB")


def test_gb_gib_slip():
    g = grade_part(WEIGHTS, "75")
    assert g.valid and not g.correct and g.score == 0.0
    assert g.misconception == "gb-vs-gib"
    assert "GiB" in g.feedback
    assert (g.parsed_value, g.parsed_unit) == (75.0, "GB")


def test_gib_answer_is_converted():
    assert grade_part(WEIGHTS, "75 GiB").correct
    g = grade_part(WEIGHTS, "80.53 GiB")  # right digits, wrong unit: 86.47 GB
    assert not g.correct and g.misconception == "gb-vs-gib"
    assert (g.parsed_value, g.parsed_unit) == (80.53, "GiB")


def test_bytes_answer_is_converted():
    g = grade_part(WEIGHTS, "80530636800 B")
    assert g.correct and g.parsed_unit == "B" and g.parsed_value == 80530636800
    assert grade_part(WEIGHTS, "80,530,636,800 bytes").correct
    assert grade_part(WEIGHTS, "644.245 Gb").correct  # in bits, still the same size


def test_wrong_unit_kind():
    g = grade_part(WEIGHTS, "1.2e3 GB/s")
    assert g.valid and not g.correct and g.score == 0.0
    assert g.misconception == "wrong-unit-kind"
    assert g.feedback == "This asks for a size in bytes (GB); GB/s is a rate in bytes per second."
    assert (g.parsed_value, g.parsed_unit) == (1200.0, "GB/s")
    t = grade_part(Part("time", 3.0, "ms"), "3 GB")
    assert t.misconception == "wrong-unit-kind" and "a time (ms)" in t.feedback


def test_bits_vs_bytes():
    g = grade_part(Part("bw", 50.0, "GB/s"), "400")
    assert g.misconception == "bits-vs-bytes"
    assert grade_part(Part("bw", 50.0, "GB/s"), "400 Gbps").correct
    assert grade_part(Part("bw", 50.0, "GB/s"), "6.25").misconception == "bits-vs-bytes"


def test_per_gpu_vs_total_needs_the_hint():
    part = Part("per_gpu", 20.0, "GB")
    g = grade_part(part, "160", hints=FactorHints(parallelism=8))
    assert g.misconception == "per-gpu-vs-total" and "8" in g.feedback
    assert grade_part(part, "2.5", hints=FactorHints(parallelism=8)).misconception == (
        "per-gpu-vs-total"
    )
    assert grade_part(part, "160").misconception == "bits-vs-bytes"  # no hint: just 8


def test_allreduce_factor():
    part = Part("time", 10.0, "ms")
    g = grade_part(part, "17.5", hints=FactorHints(ranks=8))  # 2(8-1)/8 = 1.75
    assert g.misconception == "allreduce-factor" and "1.75" in g.feedback
    assert grade_part(part, "5.714", hints=FactorHints(ranks=8)).misconception == (
        "allreduce-factor"
    )
    # n=2 gives a factor of 1, which is skipped; the answer 20 is then "off by 2"
    assert grade_part(part, "20", hints=FactorHints(ranks=2)).misconception == (
        "wrong-bytes-per-param"
    )


def test_generic_factor_order_and_codes():
    part = Part("x", 100.0, "GB")
    assert grade_part(part, "0.1").misconception == "unit-scale"
    assert grade_part(part, "102400").misconception == "unit-scale"
    assert grade_part(part, "6000").misconception == "time-unit"
    assert grade_part(part, "2400").misconception == "time-unit"
    assert grade_part(part, "25").misconception == "wrong-bytes-per-param"
    assert grade_part(part, "123").misconception is None
    assert grade_part(part, "123").feedback.startswith("Not correct")
    fb = grade_part(part, "50").feedback
    assert "fp32" in fb and "bf16" in fb and "int4" in fb


def test_fraction_vs_percent():
    assert grade_part(Part("goodput", 85.0, "%"), "0.85").misconception == "fraction-vs-percent"
    assert grade_part(Part("goodput", 85.0, "%"), "0.85 x").correct  # a ratio of 0.85 is 85 %
    # only plain-number parts can confuse a fraction with a percentage
    assert grade_part(Part("size", 85.0, "GB"), "0.85").misconception is None
    assert grade_part(Part("fraction", 0.85, ""), "85%").correct


def test_integer_parts_are_exact():
    part = Part("max_seqs", 185, "", kind=Kind.INTEGER)
    g = grade_part(part, "185.0")
    assert g.correct and g.parsed_value == 185 and isinstance(g.parsed_value, int)
    assert grade_part(part, "185").correct
    g = grade_part(part, "185.5")
    assert g.valid and not g.correct and g.score == 0.0
    assert "whole number" in g.feedback
    assert not grade_part(part, "186").correct  # RelAbs default would allow 1 %
    assert grade_part(part, "12 GPUs").misconception is None  # a count, just wrong
    assert grade_part(Part("gpus", 8, "", kind=Kind.INTEGER), "8 GPUs").correct


def test_integer_parts_detect_factors():
    part = Part("gpus", 64, "", kind=Kind.INTEGER)
    assert grade_part(part, "8", hints=FactorHints(parallelism=8)).misconception == (
        "per-gpu-vs-total"
    )


def test_choice_normalisation():
    part = Part("bound", "memory", kind=Kind.CHOICE, choices=("memory", "compute"))
    for text in ["memory", "Memory-bound", "memory bound", "MEMORY", " memory-limited "]:
        g = grade_part(part, text)
        assert g.correct, text
        assert g.parsed_value == "memory"
    g = grade_part(part, "compute-bound")
    assert g.valid and not g.correct and g.parsed_value == "compute"
    assert normalise_choice("Memory-Bound") == "memory"
    assert normalise_choice("all_reduce") == normalise_choice("All-Reduce") == "allreduce"


def test_choice_outside_the_list_is_invalid():
    part = Part("bound", "memory", kind=Kind.CHOICE, choices=("memory", "compute"))
    for text in ["network", "", "memory or compute", "x" * 200]:
        g = grade_part(part, text)
        assert not g.valid
        assert "memory" in g.error and "compute" in g.error
        d = g.as_dict(slug="roofline-attainable", part="bound")
        assert d["error"] == g.error


def test_choice_template_misconception():
    part = Part("bound", "memory", kind=Kind.CHOICE, choices=("memory", "compute"))
    ms = [Misconception("peak-not-ridge", "bound", "compute", "Compare with the ridge point.")]
    g = grade_part(part, "Compute", misconceptions=ms)
    assert g.misconception == "peak-not-ridge" and g.feedback == "Compare with the ridge point."


@pytest.mark.parametrize(
    "text", ["", "garbage", "2+2", "80/1.024", "(3)", "nan", "inf", "1e999", "1,23", "9" * 50]
)
def test_invalid_answers(text):
    g = grade_part(WEIGHTS, text)
    assert not g.valid and not g.correct and g.score == 0.0
    assert g.error and "Expected" in g.error
    assert g.parsed_value is None
    d = g.as_dict(slug="weights-memory", part="weights")
    assert set(d) == CONTRACT_KEYS | {"error"}


def test_as_dict_matches_the_contract():
    d = grade_part(WEIGHTS, "75").as_dict(slug="weights-memory", part="weights")
    assert set(d) == CONTRACT_KEYS
    assert d == {
        "slug": "weights-memory",
        "part": "weights",
        "valid": True,
        "correct": False,
        "score": 0.0,
        "parsed": {"value": 75.0, "unit": "GB"},
        "misconception": "gb-vs-gib",
        "feedback": d["feedback"],
    }
    assert isinstance(d["feedback"], str) and d["feedback"]


def test_template_misconception_takes_precedence():
    part = Part("per_token", 128.0, "KB")
    ms = [
        Misconception("other-part", "total", 64.0, "not this one"),
        Misconception("missing-kv-factor-2", "per_token", 64.0, "Keys and values: times 2."),
    ]
    g = grade_part(part, "64", misconceptions=ms)
    assert g.misconception == "missing-kv-factor-2"  # not the generic wrong-bytes-per-param
    assert g.feedback == "Keys and values: times 2."
    assert grade_part(part, "64").misconception == "wrong-bytes-per-param"
    assert grade_part(part, "64.3", misconceptions=ms).misconception == "missing-kv-factor-2"


@pytest.mark.parametrize(
    ("part", "right", "wrong", "named"),
    [
        (Part("per_token", 128.0, "KB"), "128", "64", "missing-kv-factor-2"),
        (
            Part("bound", "memory", kind=Kind.CHOICE, choices=("memory", "compute")),
            "memory",
            "compute",
            "peak-not-ridge",
        ),
    ],
)
def test_misconceptions_given_as_a_function_are_derived_for_a_wrong_answer_only(
    part, right, wrong, named
):
    """Variant.grade hands its misconceptions over as a function: deriving them costs
    30-400 us a variant, which a right answer (or one unreadable) never needs."""
    ms = [
        Misconception("missing-kv-factor-2", "per_token", 64.0, "Keys and values: times 2."),
        Misconception("peak-not-ridge", "bound", "compute", "Compare with the ridge point."),
    ]
    asked = []

    def derive():
        asked.append(1)
        return ms

    assert grade_part(part, right, misconceptions=derive).correct
    assert not grade_part(part, "", misconceptions=derive).valid
    assert asked == []
    g = grade_part(part, wrong, misconceptions=derive)
    assert asked == [1] and g.misconception == named
    assert g == grade_part(part, wrong, misconceptions=ms)  # the same grade as a list gives


def test_integer_misconception_is_exact():
    part = Part("servers", 10, "", kind=Kind.INTEGER)
    ms = [Misconception("no-power-cap", "servers", 8, "Apply the power cap.")]
    assert grade_part(part, "8", misconceptions=ms).misconception == "no-power-cap"
    assert grade_part(part, "7", misconceptions=ms).misconception is None


def test_other_tolerances():
    est = Part("estimate", 100.0, "GB", tolerance=Estimate())
    g = grade_part(est, "150")
    assert not g.correct and 0 < g.score < 1
    assert grade_part(est, "105").correct
    sig = Part("sig", 80.53, "GB", tolerance=SigFigs(figures=3))
    assert grade_part(sig, "80.5").correct
    exact = Part("exact", 0.5, "", tolerance=Exact())
    assert grade_part(exact, "0.5").correct and not grade_part(exact, "0.50001").correct


def test_result_is_frozen():
    g = grade_part(WEIGHTS, "75")
    assert isinstance(g, GradeResult)
    with pytest.raises(AttributeError):
        g.score = 1.0  # type: ignore[misc]


def test_pint_free_after_warm_up(monkeypatch):
    """Speed is measured in bench/, not here; this pins the reason it is fast."""
    grade_part(WEIGHTS, "75 GiB")
    grade_part(WEIGHTS, "80.53")

    def boom():
        raise AssertionError("pint touched in the hot path")

    monkeypatch.setattr(units, "get_registry", boom)
    for text in ("80.53", "75 GiB", "80530636800 B", "75"):
        grade_part(WEIGHTS, text)


@settings(max_examples=300, deadline=None)
@given(
    st.floats(-1e6, 1e6),
    st.floats(-1e6, 1e6),
    st.floats(0, 0.5),
    st.floats(0, 10),
)
def test_fast_relabs_check_agrees_with_relabs_score(answer, target, rel, floor):
    """Without a floor, the detector's test is the grader's; with one, slips are matched
    relatively only (the floor resolves the right answer, not the slips)."""
    tol = RelAbs(rel=rel, abs=floor)
    near = _within_tolerance(Part("p", 1.0, "GB", tolerance=tol))
    if floor == 0:
        assert near(answer, target) == (tol.score(answer, target) >= 1.0)
    else:
        slack = rel if rel > 0 else 0.01
        assert near(answer, target) == (abs(answer - target) <= slack * abs(target))


# A chance in %, graded within 1% or 0.01 percentage points (expected-failures' p_none).
CHANCE = RelAbs(rel=0.01, abs=0.01)


def test_a_factor_slip_below_the_floor_is_named_only_at_its_own_value():
    # 0.02 % right; 0.0025 % is the bits-for-bytes slip (÷ 8). With the floor applied to
    # every target, 0.0025 would first match 0.02 / 1.024 (gb-vs-gib, 0.0195, within
    # 0.01 of it) and the report could never tell the slips apart.
    part = Part("p_none", 0.02, "%", tolerance=CHANCE)
    assert grade_part(part, "0.0025").misconception == "bits-vs-bytes"
    assert grade_part(part, "0.0031").misconception is None
    # 0.1027 % ÷ 24 = 0.004279 lies within 0.01 of 0.1027 ÷ 8 = 0.01284 (above the floor):
    # only the relative test keeps the two factors apart.
    part = Part("p_none", 0.1027, "%", tolerance=CHANCE)
    assert grade_part(part, "0.004279").misconception == "time-unit"
    assert grade_part(part, "0.01284").misconception == "bits-vs-bytes"


def test_a_vanishing_answer_names_no_factor_for_a_small_wrong_one():
    # 2.4e-24 % is 0 to the grader; 0.5 % is wrong, and no factor of 2.4e-24 explains it.
    part = Part("p_none", 2.4225e-24, "%", tolerance=CHANCE)
    assert grade_part(part, "0").correct and grade_part(part, "0.005").correct
    graded = grade_part(part, "0.5")
    assert not graded.correct and graded.misconception is None


PARTS = [
    WEIGHTS,
    Part("n", 185, "", kind=Kind.INTEGER),
    Part("goodput", 85.0, "%"),
    Part("bound", "memory", kind=Kind.CHOICE, choices=("memory", "compute")),
]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(PARTS), st.text(max_size=70))
def test_grade_never_raises(part, text):
    g = grade_part(part, text, hints=FactorHints(parallelism=4, ranks=4))
    assert 0.0 <= g.score <= 1.0
    assert g.correct == (g.valid and g.score == 1.0)
    assert g.valid or g.error
    assert set(g.as_dict(slug="s", part=part.name)) >= CONTRACT_KEYS


def test_a_choice_can_accept_a_second_answer_an_expert_would_defend():
    """Issue 34: where two layouts are equally right (EP or TP for a wide MoE on one node),
    the part keys one and accepts the other; a slip naming the other is a template bug."""
    part = Part(
        "strategy",
        "expert-parallel",
        kind=Kind.CHOICE,
        choices=("data-parallel", "tensor-parallel", "expert-parallel"),
        also_correct=("tensor-parallel",),
    )
    for text in ("expert-parallel", "Tensor parallel", "tensor-parallel"):
        g = grade_part(part, text)
        assert g.correct and g.score == 1.0, text
    assert not grade_part(part, "data-parallel").correct
    bug = [Misconception("tp-for-experts", "strategy", "tensor-parallel", "…")]
    assert grade_part(part, "tensor-parallel", misconceptions=bug).correct
