"""When a learner may see correctness, answers and worked solutions."""

from __future__ import annotations

from datetime import datetime

from assess.models import Attempt, Quiz


def feedback_visible(*, attempt: Attempt, now: datetime) -> bool:
    """immediately: always; after_attempt: once the attempt is over; after_close: once
    the quiz has closed for everyone, so no one can pass answers to a classmate."""
    quiz = attempt.quiz
    if quiz.feedback == Quiz.Feedback.IMMEDIATELY:
        return True
    if quiz.feedback == Quiz.Feedback.AFTER_ATTEMPT:
        return attempt.status != Attempt.Status.OPEN or attempt.past_deadline(now)
    return quiz.closes_at is not None and now >= quiz.closes_at
