"""The cut on the ability scale (modified Angoff through the TCC) and how a certification
exam attempt is decided: on ability once the track has a cut and every template on the
form is calibrated on enough answers, else on the raw score, with incident drills a
requirement of their own (issue 41 item 4)."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest
from django.utils import timezone

from api_common.service_errors import InvalidInput, NotPermitted
from assess.models import Attempt
from assess.services.attempts import attempt_finish, attempt_start
from audit.models import AuditEvent
from certify.models import Calibration, Certificate, ExamDecision, ItemParameters
from certify.psychometrics.standard_setting import (
    StandardSettingError,
    angoff_cut,
    decide,
)
from certify.psychometrics.twopl import expected_score
from certify.services.certificates import certificates_issue_due
from certify.services.exam_decisions import MIN_ITEM_RESPONSES, standard_set
from tests.assess.helpers import answer_question
from tests.certify.conftest import SERVING, approve_memo, set_mastery
from tests.factories import UserFactory

# --- pure ----------------------------------------------------------------------------------


def test_one_item_cut_is_the_logit_of_its_rating():
    """One item: P(theta_c) = r, so theta_c = b + ln(r / (1 - r)) / a."""
    cut = angoff_cut({"x": [0.6, 0.8]}, {"x": (1.5, 0.3)})
    r = 0.7
    assert cut.theta == pytest.approx(0.3 + math.log(r / (1 - r)) / 1.5, abs=1e-5)
    assert (cut.borderline_score, cut.items, cut.raters) == (pytest.approx(0.7), 1, 2)


def test_the_cut_has_the_borderline_expected_score_on_the_rated_items():
    params = {"a": (0.8, -1.0), "b": (1.2, 0.0), "c": (1.6, 1.1)}
    ratings = {"a": [0.9, 0.85], "b": [0.6], "c": [0.35, 0.3, 0.4]}
    cut = angoff_cut(ratings, params)
    a = [params[k][0] for k in sorted(params)]
    b = [params[k][1] for k in sorted(params)]
    assert float(expected_score(cut.theta, a, b)[0]) == pytest.approx(0.875 + 0.6 + 0.35, abs=1e-5)


@pytest.mark.parametrize(
    ("ratings", "params", "named"),
    [
        ({}, {}, "no ratings"),
        ({"x": [0.5]}, {}, "x: no calibrated parameters"),
        ({"x": [1.0]}, {"x": (1.0, 0.0)}, "x: rating 1.0"),
        ({"x": [0.0]}, {"x": (1.0, 0.0)}, "x: rating 0.0"),
        ({"x": [0.999]}, {"x": (1.0, 0.0)}, "outside the abilities"),
        ({"x": []}, {"x": (1.0, 0.0)}, "x: 1 to 100 ratings"),
    ],
)
def test_ratings_that_cannot_set_a_cut_are_refused_by_name(ratings, params, named):
    with pytest.raises(StandardSettingError, match=named):
        angoff_cut(ratings, params)


PARAMS = {"t1": (1.2, -0.5, 500), "t2": (1.0, 0.2, 500), "t3": (1.4, 0.8, 500)}


def test_the_ability_rule_decides_on_theta_against_the_cut():
    common = dict(score=0.3, pass_mark=0.8, drill_scores=[1.0], params=PARAMS, min_responses=200)
    strong = decide(items=[("t1", 1), ("t2", 1), ("t3", 1)], cut=0.4, **common)
    weak = decide(items=[("t1", 0), ("t2", 0), ("t3", 0)], cut=0.4, **common)
    assert (strong.rule, strong.passed, weak.passed) == ("ability", True, False)
    assert strong.theta > 0.4 > weak.theta and strong.se > 0 and strong.cut == 0.4
    assert "at or above the cut 0.40" in strong.reason and "below the cut" in weak.reason


def test_without_a_cut_or_enough_answers_the_raw_score_decides_and_says_why():
    items = [("t1", 1), ("t2", 1), ("t3", 0)]
    common = dict(items=items, drill_scores=[], pass_mark=0.8, min_responses=200)
    no_cut = decide(score=0.85, cut=None, params=PARAMS, **common)
    assert (no_cut.rule, no_cut.passed, no_cut.theta) == ("raw-score", True, None)
    assert no_cut.reason.startswith("No standard setting")
    thin = {**PARAMS, "t3": (1.4, 0.8, 40)}
    few = decide(score=0.7, cut=0.0, params=thin, **common)
    assert (few.rule, few.passed) == ("raw-score", False) and "(t3)" in few.reason


def test_a_failed_drill_fails_the_attempt_under_either_rule():
    for cut in (None, -3.0):
        rule = decide(
            score=0.95, pass_mark=0.8, items=[("t1", 1), ("t2", 1), ("t3", 1)],
            drill_scores=[1.0, 0.5], cut=cut, params=PARAMS, min_responses=200,
        )  # fmt: skip
        assert rule.passed is False and "incident drill scored under 6 of 10" in rule.reason


# --- the services ----------------------------------------------------------------------------


def _calibrate(track, *, n=MIN_ITEM_RESPONSES) -> Calibration:
    """A calibration covering every scored template of the track's pools."""
    calibration = Calibration.objects.create(
        learners=n, responses=n * 10, log_likelihood=-1.0, iterations=10, converged=True
    )
    pools = sorted(
        {t for s in track.exam.slots.all() for t in s.templates if not t.startswith("drill-")}
    )
    for k, slug in enumerate(pools):
        ItemParameters.objects.create(
            calibration=calibration, template_slug=slug, discrimination=1.2,
            difficulty=-0.5 + 0.1 * (k % 5), se_discrimination=0.1, se_difficulty=0.1, n=n,
        )  # fmt: skip
    return calibration


def _ratings(track, p: float) -> dict:
    pools = {t for s in track.exam.slots.all() for t in s.templates if not t.startswith("drill-")}
    return {t: [p, p] for t in sorted(pools)}


def _take(track, user, *, right: bool) -> Attempt:
    attempt, _ = attempt_start(quiz=track.exam, learner=user)
    for q in attempt.questions.filter(active=True):
        # Drills right either way: this test is about the scored items.
        answer_question(attempt, q, right=right or q.template_slug.startswith("drill-"))
    return attempt_finish(attempt=attempt)


@pytest.fixture
def staff(db):
    return UserFactory(is_staff=True)


def test_staff_set_versioned_cuts_and_the_setting_is_audited(tracks, staff):
    track = tracks[SERVING]
    _calibrate(track)
    first = standard_set(user=staff, track=track, ratings=_ratings(track, 0.7))
    second = standard_set(user=staff, track=track, ratings=_ratings(track, 0.8))
    assert (first.version, second.version) == (1, 2)
    assert second.cut_theta > first.cut_theta
    events = AuditEvent.objects.filter(action=AuditEvent.Action.STANDARD_SET)
    assert events.count() == 2 and events.first().actor == staff


def test_only_staff_set_a_cut_and_bad_ratings_are_named(tracks, staff):
    track = tracks[SERVING]
    _calibrate(track)
    with pytest.raises(NotPermitted):
        standard_set(user=UserFactory(), track=track, ratings=_ratings(track, 0.7))
    with pytest.raises(InvalidInput, match="training-time: not a scored template"):
        standard_set(user=staff, track=track, ratings={"training-time": [0.5]})
    bad = {**_ratings(track, 0.7), "kv-cache-total": [1.5]}
    with pytest.raises(InvalidInput, match="kv-cache-total: rating 1.5"):
        standard_set(user=staff, track=track, ratings=bad)


def _ready(track):
    user = UserFactory()
    set_mastery(user, track)
    approve_memo(user, at=timezone.now() - timedelta(hours=2))
    return user


def test_an_exam_is_decided_on_ability_and_the_certificate_keeps_it(tracks, staff):
    track = tracks[SERVING]
    _calibrate(track)
    setting = standard_set(user=staff, track=track, ratings=_ratings(track, 0.6))
    strong, weak = _ready(track), _ready(track)
    _take(track, strong, right=True)
    _take(track, weak, right=False)
    certificates_issue_due(user_id=weak.pk)
    (decision,) = ExamDecision.objects.filter(attempt__learner=weak)
    assert (decision.rule, decision.passed, decision.standard_setting) == (
        "ability",
        False,
        setting,
    )
    assert not Certificate.objects.filter(holder=weak).exists()

    (certificate,) = certificates_issue_due(user_id=strong.pk)
    decision = ExamDecision.objects.get(attempt__learner=strong)
    assert (decision.rule, decision.passed, decision.standard_setting) == ("ability", True, setting)
    exam = certificate.evidence["exam"]
    assert exam["rule"] == "ability" and exam["cut"] == pytest.approx(setting.cut_theta)
    assert exam["ability"] == pytest.approx(decision.theta) and exam["se"] == decision.se > 0

    # A later cut does not re-decide what was decided.
    standard_set(user=staff, track=track, ratings=_ratings(track, 0.95))
    certificates_issue_due(user_id=strong.pk)
    assert ExamDecision.objects.get(attempt__learner=strong).cut == decision.cut


def test_too_few_answers_falls_back_to_the_raw_score_and_says_so(tracks, staff):
    track = tracks[SERVING]
    _calibrate(track, n=MIN_ITEM_RESPONSES - 1)
    standard_set(user=staff, track=track, ratings=_ratings(track, 0.6))
    user = _ready(track)
    _take(track, user, right=True)
    (certificate,) = certificates_issue_due(user_id=user.pk)
    decision = ExamDecision.objects.get(attempt__learner=user)
    assert decision.rule == "raw-score" and f"calibrated on {MIN_ITEM_RESPONSES}" in decision.reason
    assert certificate.evidence["exam"]["rule"] == "raw-score"


def _call(*args):
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("certify", *args, stdout=out)
    return out.getvalue()


def test_the_command_sets_a_cut_from_a_ratings_file(tracks, staff, tmp_path):
    import json as _json

    from django.core.management import CommandError

    track = tracks[SERVING]
    _calibrate(track)
    path = tmp_path / "ratings.csv"
    rows = [f"r{k},{t},0.7" for t in _ratings(track, 0.7) for k in (1, 2)]
    path.write_text("rater,template,probability\n" + "\n".join(rows) + "\n")
    out = _json.loads(_call("standard-set", "--track", SERVING, "--ratings", str(path),
                            "--by", staff.username))  # fmt: skip
    assert out["version"] == 1 and out["track"] == SERVING
    path.write_text("rater,template,probability\nr1,kv-cache-total,lots\n")
    with pytest.raises(CommandError, match="row 2: probability 'lots'") as err:
        _call("standard-set", "--track", SERVING, "--ratings", str(path), "--by", staff.username)
    assert err.value.returncode == 2
    learner = UserFactory()
    path.write_text("rater,template,probability\n" + "\n".join(rows) + "\n")
    with pytest.raises(CommandError, match="Only staff") as err:
        _call("standard-set", "--track", SERVING, "--ratings", str(path), "--by", learner.username)
