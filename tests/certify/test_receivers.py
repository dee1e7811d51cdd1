"""The progress signal reaches certification in the request, with no broker: a mastery
change that cannot complete a track is dismissed without evaluating; one that crosses a
threshold, an exam's end and a memo's approval evaluate; a failure is logged, never
turned into an error for an answer already saved."""

from __future__ import annotations

import logging

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from assess.signals import progress_recorded
from certify.models import Certificate
from certify.receivers import may_complete, track_exam_ids, track_thresholds
from tests.certify.conftest import FLEET
from tests.factories import QuizFactory

pytestmark = pytest.mark.django_db


def send(user_id: int, reason: str, changes=None, quiz_id=None) -> None:
    progress_recorded.send(
        sender="assess", user_id=user_id, reason=reason, changes=changes, quiz_id=quiz_id
    )


def test_may_complete_only_when_a_skill_rises_across_a_threshold():
    assert may_complete({"a": (0.90, 0.96)}, (0.95,))
    assert may_complete({"a": (0.94, 0.95)}, (0.95,))  # reaching it is enough
    assert not may_complete({"a": (0.96, 0.97)}, (0.95,))  # above already
    assert not may_complete({"a": (0.50, 0.90)}, (0.95,))  # still below
    assert not may_complete({"a": (0.97, 0.90)}, (0.95,))  # falling
    assert may_complete({"a": (0.50, 0.60), "b": (0.91, 0.93)}, (0.6, 0.95))


def test_a_crossing_issues_the_certificate(tracks, ready_learner):
    learner = ready_learner(tracks[FLEET])
    send(learner.pk, "mastery", {"any-skill": (0.9, 0.99)})
    assert Certificate.objects.filter(holder=learner, status="valid").count() == 1


def test_a_change_that_crosses_nothing_costs_no_evaluation(tracks, ready_learner):
    learner = ready_learner(tracks[FLEET])  # ready, but this answer changed nothing decisive
    track_thresholds()  # warm the cache, as every answer after the first finds it
    with CaptureQueriesContext(connection) as queries:
        send(learner.pk, "mastery", {"any-skill": (0.2, 0.3)})
    assert len(queries) == 0
    assert not Certificate.objects.filter(holder=learner).exists()


@pytest.mark.parametrize("reason", ["attempt", "memo"])
def test_an_exam_end_or_a_memo_approval_always_evaluates(tracks, ready_learner, reason):
    learner = ready_learner(tracks[FLEET])
    send(learner.pk, reason)
    assert Certificate.objects.filter(holder=learner, status="valid").count() == 1


def test_a_track_exams_end_always_evaluates(tracks, ready_learner):
    track = tracks[FLEET]
    learner = ready_learner(track)
    send(learner.pk, "attempt", {}, quiz_id=track.exam_id)  # nothing applied, still a pass
    assert Certificate.objects.filter(holder=learner, status="valid").count() == 1


def test_another_exams_end_is_dismissed_unless_it_crosses_a_threshold(tracks, ready_learner):
    learner = ready_learner(tracks[FLEET])
    other = QuizFactory(mode="exam")
    track_thresholds(), track_exam_ids()  # warm, as every finish after the first finds them
    with CaptureQueriesContext(connection) as queries:
        send(learner.pk, "attempt", {"any-skill": (0.2, 0.3)}, quiz_id=other.pk)
        send(learner.pk, "attempt", None, quiz_id=other.pk)  # nothing applied (practice)
    assert len(queries) == 0
    assert not Certificate.objects.filter(holder=learner).exists()
    send(learner.pk, "attempt", {"any-skill": (0.9, 0.99)}, quiz_id=other.pk)
    assert Certificate.objects.filter(holder=learner, status="valid").count() == 1


def test_a_failing_evaluation_is_logged_not_raised(tracks, ready_learner, monkeypatch, caplog):
    def broken(*, user_id, now=None):
        raise ValueError("a bug in the evaluation")

    monkeypatch.setattr("certify.services.certificates.certificates_issue_due", broken)
    learner = ready_learner(tracks[FLEET])
    with caplog.at_level(logging.ERROR, logger="certify.receivers"):
        send(learner.pk, "attempt")  # no exception reaches the request
    [record] = [r for r in caplog.records if r.name == "certify.receivers"]
    assert "certificate evaluation failed" in record.getMessage() and record.exc_info


def test_load_tracks_refreshes_the_cached_thresholds(tracks, tmp_path):
    from django.core.management import call_command

    assert track_thresholds() == (0.95,)
    from certify.schema import DEFAULT_DATA_DIR

    for path in DEFAULT_DATA_DIR.glob("*.yaml"):
        text = path.read_text().replace("mastery_threshold: 0.95", "mastery_threshold: 0.9")
        (tmp_path / path.name).write_text(text)
    call_command("load_tracks", "--data-dir", str(tmp_path), verbosity=0)
    assert track_thresholds() == (0.9,)
    assert track_exam_ids() == frozenset(t.exam_id for t in tracks.values())
