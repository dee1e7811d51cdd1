"""The passback's safety net (lti.reconcile): a grade released while its after-commit
bookkeeping was lost (the process or the database gone between the two) has no
ScoreSync row; the beat's pass finds it after the grace and sends it, once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from assess.models import Attempt
from assess.services.attempts import attempt_start
from assess.services.regrade import responses_regrade
from audit.models import AuditEvent
from lti.models import ScoreSync
from lti.reconcile import RECONCILE_GRACE, RECONCILE_WINDOW, scores_reconcile
from lti.tasks import requeue_scores
from tests.factories import UserFactory
from tests.lti.test_grades import finish, launch

pytestmark = pytest.mark.django_db


def lost(capture):
    """A context manager like django_capture_on_commit_callbacks that drops what would
    run after the commit: the passback's bookkeeping never happens."""

    def dropping(*, execute: bool):
        return capture(execute=False)

    return dropping


def test_a_release_whose_bookkeeping_was_lost_is_sent_by_the_beat_once(
    platform, lms, django_capture_on_commit_callbacks
):
    attempt = finish(launch(platform), lost(django_capture_on_commit_callbacks))
    assert attempt.mastery_applied_at is not None  # released
    assert not ScoreSync.objects.exists() and lms.scores == []
    # Within the grace the after-commit path may still be running: left alone.
    assert scores_reconcile(now=attempt.mastery_applied_at + RECONCILE_GRACE / 2) == 0
    later = attempt.mastery_applied_at + RECONCILE_GRACE + timedelta(seconds=1)
    with django_capture_on_commit_callbacks(execute=True):
        assert scores_reconcile(now=later) == 1
    sync = ScoreSync.objects.get()
    assert (sync.learner_id, sync.quiz_id, sync.state) == (
        attempt.learner_id,
        attempt.quiz_id,
        "sent",
    )
    assert [s["scoreGiven"] for _, s in lms.scores] == [attempt.points]
    with django_capture_on_commit_callbacks(execute=True):
        assert scores_reconcile(now=later) == 0  # a row exists now: nothing twice
    assert len(lms.scores) == 1


def test_the_beat_runs_it_and_leaves_old_releases_and_web_learners_alone(
    platform, lms, django_capture_on_commit_callbacks
):
    lms_attempt = finish(launch(platform), lost(django_capture_on_commit_callbacks))
    web, _ = attempt_start(quiz=platform.quiz, learner=UserFactory())
    finish(web, lost(django_capture_on_commit_callbacks))
    # released long ago: outside the window
    Attempt.objects.filter(pk=lms_attempt.pk).update(
        mastery_applied_at=timezone.now() - RECONCILE_WINDOW - timedelta(minutes=1)
    )
    assert scores_reconcile() == 0  # the web learner has no LMS to send to
    Attempt.objects.filter(pk=lms_attempt.pk).update(
        mastery_applied_at=timezone.now() - RECONCILE_GRACE * 2
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert requeue_scores() == 1
    assert ScoreSync.objects.get().learner_id == lms_attempt.learner_id


def test_a_regrade_whose_passback_was_lost_is_sent_by_the_beat_once(
    platform, lms, django_capture_on_commit_callbacks
):
    attempt = finish(launch(platform), django_capture_on_commit_callbacks)
    assert [s["scoreGiven"] for _, s in lms.scores] == [1]
    # The stored parameters differ from what was solved (tests/assess/commands/
    # test_regrade.py): the regrade takes the point away, and its passback is lost.
    question = attempt.questions.get()
    question.params = {**question.params, "n_params": question.params["n_params"] * 3}
    question.save(update_fields=["params"])
    with lost(django_capture_on_commit_callbacks)(execute=True):
        report = responses_regrade(template_slug="weights-memory")
    assert report.released == [attempt.pk]
    event = AuditEvent.objects.get(action=AuditEvent.Action.REGRADE)
    assert event.detail["released_attempts"] == [attempt.pk]
    assert ScoreSync.objects.get().score_given == 1  # the LMS's row kept the old score
    assert scores_reconcile(now=event.at + RECONCILE_GRACE / 2) == 0  # within the grace
    later = event.at + RECONCILE_GRACE + timedelta(seconds=1)
    with django_capture_on_commit_callbacks(execute=True):
        assert scores_reconcile(now=later) == 1
    assert [s["scoreGiven"] for _, s in lms.scores] == [1, 0]
    with django_capture_on_commit_callbacks(execute=True):
        assert scores_reconcile(now=later) == 0  # the row holds the new score: once
    assert len(lms.scores) == 2
    # Outside the window the event is history, whatever the row says.
    ScoreSync.objects.update(score_given=1)
    assert scores_reconcile(now=event.at + RECONCILE_WINDOW + timedelta(seconds=1)) == 0
