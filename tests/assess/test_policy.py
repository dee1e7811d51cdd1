"""Feedback policy, one case per rule."""

from datetime import UTC, datetime, timedelta

from assess.models import Attempt, Quiz
from assess.policy import feedback_visible

NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)


def attempt(feedback, status=Attempt.Status.OPEN, closes_at=None, deadline=None):
    quiz = Quiz(feedback=feedback, closes_at=closes_at)
    return Attempt(quiz=quiz, status=status, deadline=deadline)


def test_immediately():
    assert feedback_visible(attempt=attempt(Quiz.Feedback.IMMEDIATELY), now=NOW)


def test_after_attempt():
    rule = Quiz.Feedback.AFTER_ATTEMPT
    assert not feedback_visible(attempt=attempt(rule), now=NOW)
    assert feedback_visible(attempt=attempt(rule, Attempt.Status.FINISHED), now=NOW)
    assert feedback_visible(attempt=attempt(rule, Attempt.Status.EXPIRED), now=NOW)
    # Past the deadline the attempt is over, even before the expiry task runs.
    assert feedback_visible(attempt=attempt(rule, deadline=NOW - timedelta(seconds=1)), now=NOW)


def test_after_close():
    rule = Quiz.Feedback.AFTER_CLOSE
    done = Attempt.Status.FINISHED
    assert not feedback_visible(attempt=attempt(rule, done, NOW + timedelta(1)), now=NOW)
    assert feedback_visible(attempt=attempt(rule, done, NOW), now=NOW)
