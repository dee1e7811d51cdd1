"""`manage.py certify simulate`: simulated learners take a track's real exam through the
services, the report says how well the exam decides at the cut, and nothing is kept."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

from assess.models import Attempt, Response, SkillMastery
from certify.models import Calibration, Track

pytestmark = pytest.mark.django_db


def _simulate(*args) -> dict:
    out = StringIO()
    call_command("certify", "simulate", *args, stdout=out)
    return json.loads(out.getvalue())


def test_a_simulation_reports_its_decisions_and_leaves_nothing(tracks, tmp_path):
    track = tracks["inference-serving-oncall"]
    slots = list(track.exam.slots.order_by("order"))
    # Sharp, spread items, the templates of a slot's pool parallel (as a well-built pool
    # is): the exam should then sort learners well.
    given = {
        t: [2.5 - 0.1 * k, -1.0 + 2.0 * i / len(slots)]
        for i, slot in enumerate(slots)
        for k, t in enumerate(slot.templates)
    }
    path = tmp_path / "params.json"
    path.write_text(json.dumps(given))
    users_before = get_user_model().objects.count()
    report = _simulate("--track", track.slug, "--learners", "80", "--seed", "4",
                       "--parameters", str(path))  # fmt: skip
    assert report["parameters"] == "given" and report["learners"] == 80
    drills = [s for s in track.exam.slots.all() if s.templates[0].startswith("drill-")]
    assert len(drills) == 1  # a drill is on the form, and is no 2PL item
    assert report["items_per_form"] == track.exam.slots.count() - len(drills)
    assert 0.5 < report["classification_accuracy"] <= 1
    assert 0.5 < report["decision_consistency"] <= 1 and 0 < report["marginal_reliability"] < 1
    assert report["recovery"]["theta_correlation"] > 0.6
    # The forms were assembled on the given parameters (stored as the latest calibration
    # inside the rolled-back transaction): exposure and difficulty spread as promised.
    forms = report["forms"]
    # 80 forms: a template's share is 0.5 +- 0.06 under the 0.6 limit (the limit itself
    # is held over 2000 forms in psychometrics/test_assembly.py); without exposure
    # control the most informative template of each pool would be on every form.
    assert forms["exposure_limit"] == 0.6 and forms["max_exposure"] < 0.75
    ref = forms["reference_expected_score_at_cut"]
    spread = forms["expected_score_at_cut"]
    assert (
        ref - forms["band_points"] <= spread["min"] <= spread["max"] <= ref + forms["band_points"]
    )
    assert spread["min"] < spread["max"]  # the forms differ
    assert not Calibration.objects.exists()
    assert get_user_model().objects.count() == users_before
    assert not Attempt.objects.exists() and not Response.objects.exists()
    assert not SkillMastery.objects.exists()


def test_flat_items_decide_worse_than_sharp_ones(tracks, tmp_path):
    track = tracks["inference-serving-oncall"]
    templates = {t for slot in track.exam.slots.all() for t in slot.templates}
    reports = {}
    for a in (0.3, 3.0):
        path = tmp_path / f"p{a}.json"
        path.write_text(json.dumps({t: [a, 0.5] for t in templates}))
        reports[a] = _simulate("--track", track.slug, "--learners", "30", "--seed", "2",
                               "--parameters", str(path))  # fmt: skip
    assert reports[3.0]["expected_accuracy"] > reports[0.3]["expected_accuracy"]


def test_unknown_track_or_missing_parameters_exit_2(tracks, tmp_path):
    with pytest.raises(CommandError, match="no track 'nope'") as err:
        _simulate("--track", "nope")
    assert err.value.returncode == 2
    path = tmp_path / "p.json"
    path.write_text("{}")
    with pytest.raises(CommandError, match="no parameters for"):
        _simulate("--track", "inference-serving-oncall", "--parameters", str(path))
    assert Track.objects.count() == 3


def test_without_a_calibration_templates_are_drawn_as_typical_items(tracks):
    """No calibration and no --parameters: every template a typical item (a = 1.7, the
    normal-ogive 1 on the logistic scale), difficulties drawn from N(0, 1) by the seed;
    a complete calibration is used instead once there is one."""
    import random

    from certify.services.simulation import TYPICAL_DISCRIMINATION, parameters_for

    track = tracks["inference-serving-oncall"]
    params, source = parameters_for(track, random.Random(4), None)
    assert source == "drawn: a = 1.7, b ~ N(0, 1)" and TYPICAL_DISCRIMINATION == 1.7
    assert {a for a, _ in params.values()} == {1.7}
    difficulties = [b for _, b in params.values()]
    assert (
        len(set(difficulties)) == len(difficulties)
        and -4 < min(difficulties) < 0 < max(difficulties) < 4
    )
    assert parameters_for(track, random.Random(4), None) == (params, source)

    calibration = Calibration.objects.create(
        learners=1, responses=1, log_likelihood=0.0, iterations=1, converged=True
    )
    calibration.items.bulk_create(
        calibration.items.model(calibration=calibration, template_slug=t, discrimination=0.9,
                                difficulty=0.1, se_discrimination=0.1, se_difficulty=0.1, n=300)
        for t in params
    )  # fmt: skip
    fitted, source = parameters_for(track, random.Random(4), None)
    assert source == f"calibration {calibration.pk}" and set(fitted.values()) == {(0.9, 0.1)}
