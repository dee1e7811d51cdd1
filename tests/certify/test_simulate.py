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
from certify.models import Track

pytestmark = pytest.mark.django_db


def _simulate(*args) -> dict:
    out = StringIO()
    call_command("certify", "simulate", *args, stdout=out)
    return json.loads(out.getvalue())


def test_a_simulation_reports_its_decisions_and_leaves_nothing(tracks, tmp_path):
    track = tracks["inference-serving-oncall"]
    templates = sorted({t for slot in track.exam.slots.all() for t in slot.templates})
    # Sharp, spread items: the exam should then sort learners well.
    given = {t: [2.5, -1.0 + 2.0 * i / len(templates)] for i, t in enumerate(templates)}
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
        reports[a] = _simulate("--track", track.slug, "--learners", "100", "--seed", "2",
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
