"""Bayesian Knowledge Tracing (pure: no database, no Django)."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from assess.mastery import bkt
from assess.mastery.bkt import (
    DEFAULT_PARAMS,
    FIT_MAX_SLIP_GUESS,
    MASTERED,
    BKTParams,
    fit,
    is_mastered,
    lesson_mastery,
    log_likelihood,
    params_for_kind,
    simulate,
    update,
    update_score,
    weakest_unmastered,
)

# The textbook example parameters: slip .1, guess .2, learn .15 (p_init is unused by update).
TEXTBOOK = BKTParams(p_init=0.2, p_learn=0.15, p_slip=0.1, p_guess=0.2)

# ------------------------------------------------------------------------------ params


def test_defaults():
    assert BKTParams(p_init=0.2, p_learn=0.15, p_slip=0.1, p_guess=0.05) == DEFAULT_PARAMS
    assert DEFAULT_PARAMS.p_forget == 0.0
    assert MASTERED == 0.95


@pytest.mark.parametrize(
    "kwargs",
    [
        {"p_init": 0.0},
        {"p_init": 1.0},
        {"p_learn": -0.1},
        {"p_slip": 1.2},
        {"p_guess": math.nan},
        {"p_slip": 0.5, "p_guess": 0.5},  # sum 1: answers carry no information
        {"p_slip": 0.6, "p_guess": 0.7},  # sum > 1: states swap
    ],
)
def test_params_validation(kwargs):
    base = {"p_init": 0.2, "p_learn": 0.15, "p_slip": 0.1, "p_guess": 0.2}
    with pytest.raises(ValueError):
        BKTParams(**{**base, **kwargs})


def test_params_refuse_non_numbers():
    with pytest.raises(TypeError):
        BKTParams(p_init="0.2", p_learn=0.15, p_slip=0.1, p_guess=0.2)
    with pytest.raises(TypeError):
        BKTParams(p_init=True, p_learn=0.15, p_slip=0.1, p_guess=0.2)


def test_params_for_kind():
    assert params_for_kind("numeric") is DEFAULT_PARAMS
    assert params_for_kind("integer") is DEFAULT_PARAMS
    four = params_for_kind("choice", 4)
    assert four.p_guess == 0.25
    assert (four.p_init, four.p_learn, four.p_slip) == (0.2, 0.15, 0.1)
    assert params_for_kind("choice", 2).p_guess == 0.5
    base = BKTParams(p_init=0.3, p_learn=0.1, p_slip=0.05, p_guess=0.01)
    assert params_for_kind("choice", 3, base=base) == BKTParams(0.3, 0.1, 0.05, 1 / 3)
    for bad in (None, 1, 0, True):
        with pytest.raises(ValueError):
            params_for_kind("choice", bad)
    with pytest.raises(ValueError):
        params_for_kind("essay")


def test_params_for_kind_accepts_the_engine_enum():
    from problems.engine.template import Kind

    assert params_for_kind(Kind.NUMERIC) is DEFAULT_PARAMS
    assert params_for_kind(Kind.CHOICE, 5).p_guess == 0.2


# ------------------------------------------------------------------------------ update


def test_update_correct_hand_computed():
    # posterior = 0.2*0.9 / (0.2*0.9 + 0.8*0.2) = 0.18 / 0.34 = 9/17 = 0.529411...
    # next      = 9/17 + (8/17)*0.15 = (9 + 1.2)/17 = 10.2/17 = 0.6 exactly
    assert update(0.2, True, TEXTBOOK) == pytest.approx(0.6, abs=1e-12)
    # Again from 0.6:
    # posterior = 0.6*0.9 / (0.6*0.9 + 0.4*0.2) = 0.54 / 0.62 = 27/31
    # next      = 27/31 + (4/31)*0.15 = 27.6/31 = 0.890322580...
    assert update(0.6, True, TEXTBOOK) == pytest.approx(27.6 / 31, abs=1e-12)
    assert update(0.6, True, TEXTBOOK) == pytest.approx(0.8903225806451613, abs=1e-12)


def test_update_incorrect_hand_computed():
    # posterior = 0.2*0.1 / (0.2*0.1 + 0.8*0.8) = 0.02 / 0.66 = 1/33 = 0.030303...
    # next      = 1/33 + (32/33)*0.15 = (1 + 4.8)/33 = 5.8/33 = 29/165 = 0.1757575...
    assert update(0.2, False, TEXTBOOK) == pytest.approx(29 / 165, abs=1e-12)
    assert update(0.2, False, TEXTBOOK) == pytest.approx(0.17575757575757575, abs=1e-12)


def test_update_with_numeric_defaults_hand_computed():
    # guess .05: a right free-form number is much stronger evidence.
    # correct: posterior = 0.18 / (0.18 + 0.8*0.05) = 0.18/0.22 = 9/11
    #          next      = 9/11 + (2/11)*0.15 = 9.3/11 = 0.845454...
    assert update(0.2, True) == pytest.approx(9.3 / 11, abs=1e-12)
    # wrong:   posterior = 0.02 / (0.02 + 0.8*0.95) = 0.02/0.78 = 1/39
    #          next      = 1/39 + (38/39)*0.15 = 6.7/39 = 0.171794871...
    assert update(0.2, False) == pytest.approx(6.7 / 39, abs=1e-12)


def test_update_choice_part_hand_computed():
    # 4 choices, guess .25: posterior = 0.18 / (0.18 + 0.8*0.25) = 0.18/0.38 = 9/19
    #                       next      = 9/19 + (10/19)*0.15 = 10.5/19 = 0.552631...
    p = update(0.2, True, params_for_kind("choice", 4))
    assert p == pytest.approx(10.5 / 19, abs=1e-12)
    assert p < update(0.2, True, params_for_kind("numeric"))


def test_update_edges():
    assert update(0.0, True, TEXTBOOK) == pytest.approx(0.15)  # nothing known: only learning
    assert update(0.0, False, TEXTBOOK) == pytest.approx(0.15)
    assert update(1.0, False, TEXTBOOK) == 1.0  # no forgetting: known stays known
    assert update(1.0, True, TEXTBOOK) == 1.0


@pytest.mark.parametrize("bad", [-0.01, 1.01, math.nan])
def test_update_rejects_bad_probabilities(bad):
    with pytest.raises(ValueError):
        update(bad, True)
    with pytest.raises(ValueError):
        update_score(bad, 1.0)
    with pytest.raises(ValueError):
        update_score(0.5, bad)


def test_update_score_hand_computed():
    # posterior = 0.5 * 9/17 + 0.5 * 1/33 = 157/561
    # next      = 157/561 + (404/561)*0.15 = 217.6/561 = 64/165 = 0.387878...
    #           = (0.6 + 29/165) / 2, the mean of the right and wrong updates
    assert update_score(0.2, 0.5, TEXTBOOK) == pytest.approx(64 / 165, abs=1e-12)


@pytest.mark.parametrize("p", [0.0, 0.01, 0.2, 0.5, 0.77, 0.95, 1.0])
def test_update_score_endpoints_equal_update(p):
    for params in (TEXTBOOK, DEFAULT_PARAMS, params_for_kind("choice", 3)):
        assert update_score(p, 1.0, params) == update(p, True, params)
        assert update_score(p, 0.0, params) == update(p, False, params)


# -------------------------------------------------------------------- update properties

probability = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
open_unit = st.floats(min_value=0.0, max_value=1.0, exclude_min=True, exclude_max=True)


@st.composite
def bkt_params(draw, floor: float = 0.0):
    """Valid parameters built, not filtered (slip + guess < 1 by construction, but for
    rounding at the edges: a filter threw most draws away and tripped hypothesis's
    health check now and then)."""
    unit = open_unit if floor == 0.0 else st.floats(min_value=floor, max_value=1.0 - 4 * floor)
    slip = draw(unit)
    guess = draw(unit) * (1.0 - slip)
    assume(max(floor, 0.0) < guess and slip + guess < 1.0)  # rounding at the edges only
    return BKTParams(p_init=draw(open_unit), p_learn=draw(unit), p_slip=slip, p_guess=guess)


@given(p=probability, params=bkt_params())
def test_correct_never_lowers_and_stays_in_unit_interval(p, params):
    right, wrong = update(p, True, params), update(p, False, params)
    assert 0.0 <= wrong <= 1.0
    assert 0.0 <= right <= 1.0
    assert right >= p  # exactly, no tolerance
    assert wrong <= right + 1e-12


@given(p=probability, q=probability, correct=st.booleans(), params=bkt_params())
def test_update_is_monotone_in_prior(p, q, correct, params):
    lo, hi = sorted((p, q))
    assert update(lo, correct, params) <= update(hi, correct, params) + 1e-12


@given(p=probability, score=probability, other=probability, params=bkt_params())
def test_update_score_in_unit_interval_and_monotone_in_score(p, score, other, params):
    value = update_score(p, score, params)
    assert 0.0 <= value <= 1.0
    assert update(p, False, params) - 1e-12 <= value <= update(p, True, params) + 1e-12
    lo, hi = sorted((score, other))
    assert update_score(p, lo, params) <= update_score(p, hi, params) + 1e-12
    assert update_score(p, 1.0, params) == update(p, True, params)
    assert update_score(p, 0.0, params) == update(p, False, params)


def test_repeated_right_answers_reach_mastery():
    p, steps = DEFAULT_PARAMS.p_init, 0
    while not is_mastered(p):
        p, steps = update(p, True), steps + 1
    # 0.2 -> 0.845 -> 0.992 (with the numeric defaults)
    assert steps == 2


# --------------------------------------------------------------------- mastery and choice


def test_is_mastered_threshold():
    assert is_mastered(0.95)
    assert is_mastered(1.0)
    assert not is_mastered(0.9499)


def test_lesson_mastery_is_the_minimum():
    ps = {"a": 0.99, "b": 0.99, "c": 0.5}
    assert lesson_mastery(ps, ["a", "b", "c"]) == 0.5  # the mean (0.83) would hide "c"
    assert lesson_mastery(ps, ["a", "b"]) == 0.99
    # An unseen skill counts at p_init.
    assert lesson_mastery(ps, ["a", "new"]) == DEFAULT_PARAMS.p_init
    assert lesson_mastery(ps, ["a", "new"], TEXTBOOK) == 0.2
    assert lesson_mastery({}, ["x"], BKTParams(0.3, 0.1, 0.1, 0.1)) == 0.3
    with pytest.raises(ValueError):
        lesson_mastery(ps, [])


def test_weakest_unmastered():
    ps = {"a": 0.99, "b": 0.4, "c": 0.3, "d": 0.3, "e": 0.96}
    assert weakest_unmastered(ps, ["a", "b", "c", "d", "e"]) == "c"
    assert weakest_unmastered(ps, ["a", "b", "d", "c", "e"]) == "d"  # tie: order given wins
    assert weakest_unmastered(ps, ["a", "e"]) is None  # all mastered
    assert weakest_unmastered(ps, []) is None
    # Unseen skills count at p_init (0.2 < 0.3).
    assert weakest_unmastered(ps, ["c", "new"]) == "new"
    assert weakest_unmastered(ps, ["b", "new"], BKTParams(0.5, 0.1, 0.1, 0.1)) == "b"
    # Exactly at the threshold is mastered.
    assert weakest_unmastered({"a": MASTERED, "b": 0.9}, ["a", "b"]) == "b"


def test_lesson_summary_counts_mastered_skills_and_names_the_first_weakest():
    ps = {"a": 0.99, "b": 0.3, "c": 0.3, "e": MASTERED}
    summary = bkt.lesson_summary(ps, ["a", "c", "b", "e"])
    assert (summary.skills, summary.mastered) == (4, 2)  # exactly at the threshold counts
    assert (summary.weakest, summary.weakest_p) == ("c", 0.3)  # tie: the order given wins
    assert bkt.lesson_summary(ps, ["b", "c"]).weakest == "b"
    unseen = bkt.lesson_summary(ps, ["b", "new"])  # unseen at p_init (0.2 < 0.3)
    assert (unseen.weakest, unseen.weakest_p, unseen.mastered) == ("new", 0.2, 0)
    assert bkt.lesson_summary({}, ["x"], BKTParams(0.5, 0.1, 0.1, 0.1)).weakest_p == 0.5
    with pytest.raises(ValueError):
        bkt.lesson_summary(ps, [])


@given(st.lists(st.sampled_from([0.1, 0.2, 0.5, 0.95, 0.99]), min_size=1, max_size=8))
def test_a_summary_from_the_estimates_in_order_is_the_summary_from_a_mapping(values):
    skills = [f"s{i}" for i in range(len(values))]
    by_skill = dict(zip(skills, values, strict=True))
    assert bkt.summary_of(skills, values) == bkt.lesson_summary(by_skill, skills)


def test_a_summary_from_estimates_needs_one_per_skill():
    with pytest.raises(ValueError):
        bkt.summary_of(["a", "b"], [0.5])
    with pytest.raises(ValueError):
        bkt.summary_of([], [])


@given(st.lists(st.sampled_from([0.1, 0.2, 0.5, 0.95, 0.99]), min_size=1, max_size=8))
def test_lesson_summary_agrees_with_the_minimum_over_skills(values):
    skills = [f"s{i}" for i in range(len(values))]
    summary = bkt.lesson_summary(dict(zip(skills, values, strict=True)), skills)
    first_low = values.index(min(values))
    assert (summary.weakest, summary.weakest_p) == (skills[first_low], min(values))
    assert summary.weakest_p == lesson_mastery(dict(zip(skills, values, strict=True)), skills)
    assert summary.mastered == sum(v >= MASTERED for v in values)


# ------------------------------------------------------------------------ likelihood


def _brute_force_log_likelihood(seq, params):
    """Sum over every hidden path (known / unknown at each step), no forgetting."""
    s, g, learn = params.p_slip, params.p_guess, params.p_learn
    total = 0.0
    for path in itertools.product((False, True), repeat=len(seq)):
        prob = params.p_init if path[0] else 1.0 - params.p_init
        for t, (known, right) in enumerate(zip(path, seq, strict=True)):
            if t:
                before = path[t - 1]
                if before:
                    prob *= 1.0 if known else 0.0
                else:
                    prob *= learn if known else 1.0 - learn
            if known:
                prob *= 1.0 - s if right else s
            else:
                prob *= g if right else 1.0 - g
        total += prob
    return math.log(total)


@given(
    seq=st.lists(st.booleans(), min_size=1, max_size=6),
    params=bkt_params(floor=2e-6),
)
# found by a CI run: two right answers take P(known) to 1 - 1.1e-9, the wrong ones then
# read the filter's 1 - p, known there to 1e-7
@example(
    seq=[True, True, False, False],
    params=BKTParams(p_init=0.999992, p_learn=0.25, p_slip=2e-06, p_guess=0.01562496875),
)
def test_log_likelihood_matches_brute_force_and_online_updates(seq, params):
    ll = log_likelihood([seq], params)
    assert ll == pytest.approx(_brute_force_log_likelihood(seq, params), rel=1e-9, abs=1e-9)
    assume(1e-9 < params.p_init < 1.0 - 1e-9)
    # The same number from the online filter: P(answer_t | history) from update().
    p, chained = params.p_init, 0.0
    for right in seq:
        # Each outcome's probability written out, not one as 1 minus the other: with a
        # tiny slip, 1 - P(right) cancels to a few digits (hypothesis found a case off
        # by 4e-9 relative, which the model's own figure did not share).
        p_right = p * (1.0 - params.p_slip) + (1.0 - p) * params.p_guess
        p_wrong = p * params.p_slip + (1.0 - p) * (1.0 - params.p_guess)
        chained += math.log(p_right if right else p_wrong)
        p = update(p, right, params)
        # The filter carries P(known) alone, so near 1 the other state's share 1 - p
        # keeps only the digits a float near 1 has: about 1e-16 / (1 - p) of it is
        # error, which a wrong answer later makes the whole of P(wrong) (p_init = 1 -
        # 1e-16 with a 1e-5 slip gave 3e-5 off after four wrong answers; p = 1 - 1.1e-9
        # after two right ones gave 2.4e-9 relative, over the tolerance). Within 1e-6 of
        # 1 that error reaches 1e-10 a step; the forward pass above carries both states.
        assume(1e-9 < p < 1.0 - 1e-6)
    assert ll == pytest.approx(chained, rel=1e-9, abs=1e-9)


def test_log_likelihood_of_ragged_sequences_is_the_sum():
    seqs = [[True, False, True], [False], [], [True, True, True, True, False, True]]
    total = log_likelihood(seqs, TEXTBOOK)
    assert total == pytest.approx(sum(log_likelihood([s], TEXTBOOK) for s in seqs if s))
    with pytest.raises(ValueError):
        log_likelihood([[], []], TEXTBOOK)


# ------------------------------------------------------------------------------ simulate


def test_simulate_is_seeded_and_shaped():
    a = simulate(np.random.default_rng(7), TEXTBOOK, 5, 4)
    b = simulate(np.random.default_rng(7), TEXTBOOK, 5, 4)
    assert a == b
    assert len(a) == 5 and all(len(row) == 4 for row in a)
    assert all(type(x) is bool for row in a for x in row)
    assert simulate(np.random.default_rng(0), TEXTBOOK, 0, 3) == []


# ------------------------------------------------------------------------------ fit

TRUE = BKTParams(p_init=0.3, p_learn=0.12, p_slip=0.08, p_guess=0.15)
# Allowed absolute error per parameter. Over 300 seeds of this exact setup (2000 learners
# x 12 steps) the estimates were unbiased, with sampling standard deviations of about
# p_init 0.012, p_learn 0.004, p_slip 0.003, p_guess 0.005. These tolerances are >= 3.3 SD.
# p_init is the least determined: only the first answers speak to it, and it trades off
# against p_learn.
TOLERANCE = {"p_init": 0.04, "p_learn": 0.02, "p_slip": 0.02, "p_guess": 0.02}


@pytest.fixture(scope="module")
def simulated():
    return simulate(np.random.default_rng(0), TRUE, 2000, 12)


def test_fit_recovers_known_parameters(simulated):
    """EM recovers p_init .3, learn .12, slip .08, guess .15 from 2000 x 12 simulated answers.

    Tolerance (absolute): p_init within 0.04; p_learn, p_slip and p_guess within 0.02
    (see TOLERANCE for the reason). The fit starts from the defaults, which are not
    the true values. Runs in well under a second.
    """
    result = fit(simulated)
    assert result.converged
    for name, tol in TOLERANCE.items():
        got, want = getattr(result.params, name), getattr(TRUE, name)
        assert abs(got - want) <= tol, f"{name}: fitted {got:.4f}, true {want}"
    assert result.log_likelihood == pytest.approx(log_likelihood(simulated, result.params))
    # The fitted parameters explain the data at least as well as the true ones.
    assert result.log_likelihood >= log_likelihood(simulated, TRUE) - 1e-6


@pytest.mark.parametrize(
    "init",
    [
        None,
        BKTParams(p_init=0.5, p_learn=0.5, p_slip=0.45, p_guess=0.45),
        BKTParams(p_init=0.9, p_learn=0.01, p_slip=0.3, p_guess=0.3),
    ],
)
def test_fit_log_likelihood_never_decreases(simulated, init):
    result = fit(simulated, init=init, tol=1e-10)
    history = np.array(result.history)
    assert len(history) == result.iterations + 1
    assert result.iterations >= 2
    # EM's guarantee, up to floating-point noise relative to |LL| ~ 1e4.
    assert np.all(np.diff(history) >= -1e-9 * abs(history[0]))
    assert history[-1] == result.log_likelihood
    assert history[-1] > history[0]


def test_fit_stays_in_bounds_and_away_from_label_switching():
    # All answers right: the likelihood is maximised in a corner; bounds must hold.
    result = fit([[True] * 6] * 50)
    assert result.params.p_slip <= FIT_MAX_SLIP_GUESS
    assert result.params.p_guess <= FIT_MAX_SLIP_GUESS
    assert result.params.p_slip + result.params.p_guess < 1
    # Start from a label-switched guess: the bounds pull it back to the honest side.
    data = simulate(np.random.default_rng(3), TRUE, 500, 10)
    flipped = fit(data, init=BKTParams(p_init=0.7, p_learn=0.1, p_slip=0.6, p_guess=0.35))
    assert flipped.params.p_slip <= FIT_MAX_SLIP_GUESS
    assert flipped.params.p_guess <= FIT_MAX_SLIP_GUESS


def test_fit_edges():
    with pytest.raises(ValueError):
        fit([])
    with pytest.raises(ValueError):
        fit([[], []])
    with pytest.raises(ValueError):
        fit([[True]], max_iter=-1)
    untouched = fit([[True, False]], max_iter=0)
    assert untouched.params == DEFAULT_PARAMS
    assert untouched.iterations == 0 and not untouched.converged
    # Length-one sequences carry no evidence about learning: p_learn keeps its start value.
    single = fit([[True], [False], [True]], max_iter=5)
    assert single.params.p_learn == DEFAULT_PARAMS.p_learn


def test_sequences_of_very_different_lengths_fit_as_if_each_stood_alone():
    """The fit pads sequences in groups of similar length (a few learners with hundreds of
    answers among many with three): the likelihood is still the sum over learners, and the
    expected counts the same, so grouping changes the speed, not the fit."""
    rng = np.random.default_rng(5)
    params = bkt.BKTParams(p_init=0.3, p_learn=0.1, p_slip=0.1, p_guess=0.2)
    sequences = [seq[:n] for seq, n in zip(
        bkt.simulate(rng, params, 40, 700), [1, 2, 3, 5, 17, 70, 300, 700] * 5, strict=True
    )]  # fmt: skip
    alone = sum(bkt.log_likelihood([seq], params) for seq in sequences)
    assert bkt.log_likelihood(sequences, params) == pytest.approx(alone, rel=1e-12)
    one_matrix = bkt._e_step(*bkt._padded([np.asarray(s) for s in sequences]), params)
    grouped = bkt._e_steps(bkt._groups(sequences), params)
    assert grouped[0] == pytest.approx(one_matrix[0], rel=1e-12)
    for key, value in one_matrix[1].items():
        assert grouped[1][key] == pytest.approx(value, rel=1e-9, abs=1e-9), key
