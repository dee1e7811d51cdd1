"""Grade passback (AGS) against lti1p3platform's token endpoint and gradebook: a learner
launched from the LMS finishes the quiz and the LMS gradebook gets the counted score
under their `sub`; faults (5xx, 401, 422, timeouts, a dead broker) are retried,
recorded or requeued, and a score is delivered once."""

from __future__ import annotations

from contextlib import contextmanager
from datetime import datetime, timedelta

import pytest
from django.db import OperationalError
from django.utils import timezone

from assess.models import Attempt, Quiz
from assess.services.attempts import attempt_finish, attempt_start
from assess.services.mastery import mastery_release_due
from assess.services.responses import response_submit
from lti.grades import NOT_QUEUED, scores_requeue_stale, scores_resend
from lti.models import LineItem, ScoreSync
from tests.assess.helpers import correct_text, wrong_text
from tests.lti.conftest import CLAIM
from tests.lti.lms_services import LINEITEMS_URL, ags_claim

pytestmark = pytest.mark.django_db
SCORE = "application/vnd.ims.lis.v1.score+json"


@contextmanager
def broker_down(monkeypatch):
    """post_score.delay refuses as a dead Redis does, for the block's duration."""
    import lti.tasks

    class DeadBroker:
        def delay(self, *args, **kwargs):
            raise ConnectionError("Error 111 connecting to 127.0.0.1:6379")

    task = lti.tasks.post_score
    monkeypatch.setattr(lti.tasks, "post_score", DeadBroker())
    yield
    monkeypatch.setattr(lti.tasks, "post_score", task)


def launch(platform, *, sub="learner-sub-1", claim=None, **extra):
    response = platform.launch(sub=sub, **(ags_claim() if claim is None else claim), **extra)
    assert response.status_code == 303, response.content
    return Attempt.objects.filter(status="open").latest("pk")


def finish(attempt, capture, *, right: bool = True) -> Attempt:
    for question in attempt.questions.all():
        for part in question.answers:
            text = correct_text(part) if right else wrong_text(part)
            response_submit(
                attempt=attempt,
                question=question,
                part=part["name"],
                text=text,
                idempotency_key=f"{attempt.pk}-{question.pk}-{part['name']}",
            )
    with capture(execute=True):
        return attempt_finish(attempt=attempt)


def test_a_finished_quiz_lands_in_the_gradebook_under_the_sub(
    platform, lms, django_capture_on_commit_callbacks
):
    attempt = finish(launch(platform), django_capture_on_commit_callbacks)
    (item_url,) = lms.line_items
    assert lms.line_items[item_url]["resourceId"] == str(platform.quiz.pk)
    assert lms.line_items[item_url]["label"] == "Memory drill"
    ((line_item, score),) = lms.scores
    assert line_item == item_url
    assert score["userId"] == "learner-sub-1"
    assert score["scoreGiven"] == attempt.points == 1
    assert score["scoreMaximum"] == 1
    assert (score["activityProgress"], score["gradingProgress"]) == ("Completed", "FullyGraded")
    assert datetime.fromisoformat(score["timestamp"]).utcoffset() == timedelta(0)
    sync = ScoreSync.objects.get()
    assert (sync.state, sync.tries, sync.sent_score_given) == ("sent", 1, 1)
    assert LineItem.objects.get().url == item_url
    assert lms.token_requests == 1


def test_an_existing_line_item_is_found_not_created_again(
    platform, lms, django_capture_on_commit_callbacks
):
    existing = f"{LINEITEMS_URL}/77"
    lms.line_items[existing] = {"id": existing, "resourceId": str(platform.quiz.pk)}
    finish(launch(platform), django_capture_on_commit_callbacks)
    finish(launch(platform, sub="learner-sub-2"), django_capture_on_commit_callbacks)
    assert list(lms.line_items) == [existing]
    assert {(item, s["userId"]) for item, s in lms.scores} == {
        (existing, "learner-sub-1"),
        (existing, "learner-sub-2"),
    }
    assert ("POST", "/contexts/course-a/lineitems") not in lms.calls
    # the second learner's score needed no look-up: the line item is stored
    assert lms.calls.count(("GET", "/contexts/course-a/lineitems")) == 1


def test_the_launch_line_item_is_used_without_a_look_up(
    platform, lms, django_capture_on_commit_callbacks
):
    given = f"{LINEITEMS_URL}/deep-linked"
    lms.line_items[given] = {"id": given, "resourceId": str(platform.quiz.pk)}
    finish(launch(platform, claim=ags_claim(lineitem=given)), django_capture_on_commit_callbacks)
    assert [item for item, _ in lms.scores] == [given]
    assert ("GET", "/contexts/course-a/lineitems") not in lms.calls


@pytest.mark.parametrize(("rule", "posts"), [(Quiz.Counting.BEST, 1), (Quiz.Counting.LAST, 2)])
def test_only_a_changed_counted_score_is_sent(
    platform, lms, django_capture_on_commit_callbacks, rule, posts
):
    Quiz.objects.filter(pk=platform.quiz.pk).update(counting_attempt=rule)
    finish(launch(platform), django_capture_on_commit_callbacks)
    finish(launch(platform), django_capture_on_commit_callbacks, right=False)
    assert len(lms.scores) == posts
    assert lms.gradebook()[(next(iter(lms.line_items)), "learner-sub-1")]["scoreGiven"] == (
        1 if rule == Quiz.Counting.BEST else 0
    )
    if posts == 2:  # each new score newer than the last, as AGS requires
        first, second = (datetime.fromisoformat(s["timestamp"]) for _, s in lms.scores)
        assert second > first


def test_a_5xx_then_200_is_delivered_once_with_its_tries_visible(
    platform, lms, django_capture_on_commit_callbacks
):
    lms.fail_next("POST", "/scores", 503)
    finish(launch(platform), django_capture_on_commit_callbacks)
    assert len(lms.scores) == 1
    sync = ScoreSync.objects.get()
    assert (sync.state, sync.tries, sync.reason) == ("sent", 2, "")


def test_a_refused_token_is_fetched_again_once(platform, lms, django_capture_on_commit_callbacks):
    lms.fail_next("POST", "/scores", 401)
    finish(launch(platform), django_capture_on_commit_callbacks)
    assert lms.token_requests == 2
    assert len(lms.scores) == 1 and ScoreSync.objects.get().tries == 1


def test_tokens_are_cached_between_scores(platform, lms, django_capture_on_commit_callbacks):
    finish(launch(platform), django_capture_on_commit_callbacks)
    finish(launch(platform, sub="learner-sub-2"), django_capture_on_commit_callbacks)
    assert len(lms.scores) == 2 and lms.token_requests == 1


def test_422_is_permanent_shown_and_resendable(platform, lms, django_capture_on_commit_callbacks):
    lms.fail_next("POST", "/scores", 422)
    finish(launch(platform), django_capture_on_commit_callbacks)
    sync = ScoreSync.objects.get()
    assert (sync.state, sync.permanent, sync.tries) == ("failed", True, 1)
    assert "HTTP 422" in sync.reason and lms.scores == []
    with django_capture_on_commit_callbacks(execute=True):
        assert scores_resend(quiz=platform.quiz) == 1
    sync.refresh_from_db()
    assert (sync.state, sync.permanent, sync.reason) == ("sent", False, "")
    assert len(lms.scores) == 1


def test_a_user_the_lms_no_longer_has_is_a_permanent_failure(
    platform, lms, django_capture_on_commit_callbacks
):
    lms.not_in_course.add("learner-sub-1")
    finish(launch(platform), django_capture_on_commit_callbacks)
    sync = ScoreSync.objects.get()
    assert (sync.state, sync.permanent) == ("failed", True) and "HTTP 403" in sync.reason


def test_retries_spent_leave_a_failed_row_that_is_not_permanent(
    platform, lms, django_capture_on_commit_callbacks
):
    lms.fail_next("POST", "/scores", *["timeout"] * 4, *[502] * 5)
    finish(launch(platform), django_capture_on_commit_callbacks)
    sync = ScoreSync.objects.get()
    assert (sync.state, sync.permanent, sync.tries) == ("failed", False, 9)
    assert sync.reason.startswith("gave up after 9 tries: score: HTTP 502")
    assert lms.scores == []


def test_a_dead_broker_loses_nothing(
    platform, lms, django_capture_on_commit_callbacks, monkeypatch
):
    with broker_down(monkeypatch):
        finish(launch(platform), django_capture_on_commit_callbacks)
    sync = ScoreSync.objects.get()
    assert (sync.state, sync.reason, lms.scores) == ("pending", NOT_QUEUED, [])
    assert scores_requeue_stale() == 0  # not stale yet
    assert scores_requeue_stale(now=timezone.now() + timedelta(minutes=11)) == 1
    sync.refresh_from_db()
    assert (sync.state, sync.reason, len(lms.scores)) == ("sent", "", 1)


def test_a_database_error_in_delivery_is_retried_not_dropped(
    platform, lms, django_capture_on_commit_callbacks, monkeypatch
):
    """PostgreSQL restarted under a delivery (the chaos run): the task retries, as for a
    5xx from the LMS, instead of failing with the row left pending and its message
    acknowledged."""
    import lti.tasks

    real, calls = lti.tasks.score_deliver, []

    def restarting(*, sync_id):
        calls.append(sync_id)
        if len(calls) == 1:
            raise OperationalError("terminating connection due to administrator command")
        return real(sync_id=sync_id)

    monkeypatch.setattr(lti.tasks, "score_deliver", restarting)
    finish(launch(platform), django_capture_on_commit_callbacks)
    sync = ScoreSync.objects.get()
    assert (len(calls), sync.state, len(lms.scores)) == (2, "sent", 1)


def test_no_score_scope_means_no_score_and_no_line_item(
    platform, lms, django_capture_on_commit_callbacks
):
    read_only = ["https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly"]
    finish(launch(platform, claim=ags_claim(scopes=read_only)), django_capture_on_commit_callbacks)
    assert not ScoreSync.objects.exists() and lms.calls == []


def test_no_line_item_and_no_right_to_create_one_is_explained(
    platform, lms, django_capture_on_commit_callbacks
):
    score_only = ["https://purl.imsglobal.org/spec/lti-ags/scope/score"]
    finish(launch(platform, claim=ags_claim(scopes=score_only)), django_capture_on_commit_callbacks)
    sync = ScoreSync.objects.get()
    assert (sync.state, sync.permanent) == ("failed", True)
    assert "does not let it create one" in sync.reason and lms.calls == []


def test_two_lms_courses_keep_two_line_items(platform, lms, django_capture_on_commit_callbacks):
    finish(launch(platform), django_capture_on_commit_callbacks)
    other = {CLAIM + "context": {"id": "course-b", "title": "LMS course B"}}
    claim = {
        "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": {
            "scope": ags_claim()["https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"]["scope"],
            "lineitems": "https://lms.example.org/contexts/course-b/lineitems",
        },
        **other,
    }
    attempt = launch(platform, sub="learner-sub-2", claim=claim)
    finish(attempt, django_capture_on_commit_callbacks)
    assert LineItem.objects.count() == 2
    assert sorted(s["userId"] for _, s in lms.scores) == ["learner-sub-1", "learner-sub-2"]


def test_an_exam_with_feedback_after_the_close_sends_nothing_before_it(
    platform, lms, django_capture_on_commit_callbacks
):
    closes = timezone.now() + timedelta(hours=1)
    Quiz.objects.filter(pk=platform.quiz.pk).update(
        mode=Quiz.Mode.EXAM, feedback=Quiz.Feedback.AFTER_CLOSE, closes_at=closes
    )
    platform.quiz.refresh_from_db()
    finish(launch(platform), django_capture_on_commit_callbacks)
    assert lms.scores == [] and not ScoreSync.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        mastery_release_due(now=closes + timedelta(seconds=1))
    assert [s["userId"] for _, s in lms.scores] == ["learner-sub-1"]


def test_a_staff_regrade_resends_a_changed_score(platform, lms, django_capture_on_commit_callbacks):
    attempt = finish(launch(platform), django_capture_on_commit_callbacks)
    from assess.signals import grade_released_on_commit

    Attempt.objects.filter(pk=attempt.pk).update(points=0, score=0)
    with django_capture_on_commit_callbacks(execute=True):
        grade_released_on_commit(
            attempt_id=attempt.pk, quiz_id=attempt.quiz_id, user_id=attempt.learner_id
        )
    assert [s["scoreGiven"] for _, s in lms.scores] == [1, 0]


def test_a_learner_without_an_lms_launch_sends_nothing(
    platform, lms, django_capture_on_commit_callbacks
):
    from tests.factories import UserFactory

    attempt, _ = attempt_start(quiz=platform.quiz, learner=UserFactory())
    finish(attempt, django_capture_on_commit_callbacks)
    assert not ScoreSync.objects.exists() and lms.calls == []


def test_resend_queues_a_pending_score_again_and_leaves_sent_ones(
    platform, lms, django_capture_on_commit_callbacks, monkeypatch
):
    finish(launch(platform, sub="sent-sub"), django_capture_on_commit_callbacks)
    with broker_down(monkeypatch):
        finish(launch(platform, sub="stuck-sub"), django_capture_on_commit_callbacks)
    assert sorted(ScoreSync.objects.values_list("state", flat=True)) == ["pending", "sent"]
    with django_capture_on_commit_callbacks(execute=True):
        assert scores_resend(quiz=platform.quiz) == 1
    assert set(ScoreSync.objects.values_list("state", flat=True)) == {"sent"}
    assert sorted(s["userId"] for _, s in lms.scores) == ["sent-sub", "stuck-sub"]


def test_a_learners_later_close_holds_everyones_lms_scores_until_it_passes(
    platform, lms, django_capture_on_commit_callbacks
):
    from assess.services.extensions import extension_grant
    from tests.factories import UserFactory

    closes = timezone.now() + timedelta(hours=1)
    Quiz.objects.filter(pk=platform.quiz.pk).update(
        mode=Quiz.Mode.EXAM, feedback=Quiz.Feedback.AFTER_CLOSE, closes_at=closes
    )
    platform.quiz.refresh_from_db()
    finish(launch(platform), django_capture_on_commit_callbacks)
    late = launch(platform, sub="late-sub")
    extension_grant(
        user=UserFactory(is_staff=True),
        quiz=Quiz.objects.get(pk=platform.quiz.pk),
        learner=late.learner,
        closes_at=closes + timedelta(hours=2),
    )
    with django_capture_on_commit_callbacks(execute=True):
        mastery_release_due(now=closes + timedelta(minutes=1))  # the quiz's own close
    assert lms.scores == []
    late.refresh_from_db()
    finish(late, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        mastery_release_due(now=closes + timedelta(hours=2, seconds=1))
    assert sorted(s["userId"] for _, s in lms.scores) == ["late-sub", "learner-sub-1"]
