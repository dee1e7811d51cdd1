"""`manage.py load_tracks`: the tracks and their exams match the files, a second run
changes nothing, and a bad file is refused naming the file and the field."""

from __future__ import annotations

import shutil
from datetime import timedelta
from io import StringIO
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from django.core.management.base import CommandError

from assess.models import Quiz
from certify.models import Track
from certify.schema import DEFAULT_DATA_DIR

pytestmark = pytest.mark.django_db


def load(*args) -> str:
    out = StringIO()
    call_command("load_tracks", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def curricula(db):
    call_command("load_curricula", verbosity=0)


def edited(tmp_path: Path, slug: str, change) -> Path:
    data = tmp_path / "tracks"
    shutil.copytree(DEFAULT_DATA_DIR, data)
    path = data / f"{slug}.yaml"
    record = yaml.safe_load(path.read_text())
    change(record)
    path.write_text(yaml.safe_dump(record, sort_keys=False))
    return data


def test_a_second_run_changes_nothing(curricula):
    assert "3 created, 0 updated, 0 unchanged" in load()
    exams = dict(Track.objects.values_list("slug", "exam_id"))
    assert "0 created, 0 updated, 3 unchanged" in load()
    assert dict(Track.objects.values_list("slug", "exam_id")) == exams
    assert Quiz.objects.filter(mode=Quiz.Mode.CERTIFICATION).count() == 3


def test_the_exam_quiz_follows_the_file(curricula):
    load()
    record = yaml.safe_load((DEFAULT_DATA_DIR / "fleet-bringup-health.yaml").read_text())
    track = Track.objects.select_related("exam").get(slug="fleet-bringup-health")
    exam = track.exam
    assert exam.mode == Quiz.Mode.CERTIFICATION
    assert exam.feedback == Quiz.Feedback.AFTER_ATTEMPT
    assert exam.time_limit == timedelta(minutes=record["exam"]["time_limit_minutes"])
    assert exam.pass_mark == record["exam"]["pass_mark"]
    assert exam.cooldown == timedelta(days=record["exam"]["cooldown_days"])
    assert exam.course is None and exam.attempts_allowed is None
    slots = list(exam.slots.order_by("order").values_list("points", "templates"))
    assert slots == [(q["points"], q["templates"]) for q in record["exam"]["questions"]]
    assert sorted(track.lessons.values_list("slug", flat=True)) == sorted(record["lessons"])
    assert track.mastery_threshold == record["mastery_threshold"]
    assert track.requires_memo is record["requires_memo"]


def test_a_changed_file_updates_its_track_only(curricula, tmp_path):
    load()

    def change(record):
        record["exam"]["pass_mark"] = 0.9
        record["exam"]["cooldown_days"] = 0

    assert "0 created, 1 updated, 2 unchanged" in load(
        "--data-dir", str(edited(tmp_path, "training-cluster-oncall", change))
    )
    exam = Track.objects.get(slug="training-cluster-oncall").exam
    assert exam.pass_mark == 0.9 and exam.cooldown is None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda r: r["lessons"].append("no-such-lesson"),
            "inference-serving-oncall.yaml: field 'lessons': unknown lesson(s) no-such-lesson",
        ),
        (
            lambda r: r["exam"]["questions"][0]["templates"].append("no-such-template"),
            "inference-serving-oncall.yaml: field 'exam.questions.0.templates'",
        ),
        (
            lambda r: r.update(mastery_threshold=1.5),
            "inference-serving-oncall.yaml: field 'mastery_threshold'",
        ),
    ],
    ids=["unknown-lesson", "unknown-template", "threshold"],
)
def test_a_bad_file_is_refused_naming_file_and_field(curricula, tmp_path, change, message):
    data = edited(tmp_path, "inference-serving-oncall", change)
    with pytest.raises(CommandError) as caught:
        load("--data-dir", str(data))
    assert message in str(caught.value)
    if "template" in message:
        assert "no-such-template" in str(caught.value)
    assert not Track.objects.exists()  # nothing half-loaded


def test_a_reminder_window_as_long_as_the_validity_is_refused(curricula, tmp_path):
    data = edited(tmp_path, "fleet-bringup-health", lambda r: r.update(reminder_days=365))
    with pytest.raises(CommandError, match="fleet-bringup-health.yaml: field '\\(file\\)'"):
        load("--data-dir", str(data))
