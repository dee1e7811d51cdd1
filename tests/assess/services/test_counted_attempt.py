"""counted_attempt: the learner's grade on a quiz is their best or their last released
attempt, and never one whose grade the feedback policy still holds back."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from assess.models import Attempt, Quiz
from assess.selectors.grades import counted_attempt
from tests.factories import QuizFactory, UserFactory

pytestmark = pytest.mark.django_db


def closed(quiz, learner, number, score, *, minutes_ago, released=True):
    finished = timezone.now() - timedelta(minutes=minutes_ago)
    return Attempt.objects.create(
        quiz=quiz,
        learner=learner,
        number=number,
        status=Attempt.Status.FINISHED,
        started_at=finished - timedelta(minutes=5),
        finished_at=finished,
        score=score,
        points=score,
        mastery_applied_at=finished if released else None,
    )


@pytest.mark.parametrize(
    ("rule", "expected"),
    [(Quiz.Counting.BEST, 2), (Quiz.Counting.LAST, 3)],
)
def test_best_or_last_by_the_quiz_rule(rule, expected):
    learner = UserFactory()
    quiz = QuizFactory(mode=Quiz.Mode.HOMEWORK, counting_attempt=rule)
    closed(quiz, learner, 1, 0.4, minutes_ago=30)
    closed(quiz, learner, 2, 0.9, minutes_ago=20)
    closed(quiz, learner, 3, 0.6, minutes_ago=10)
    assert counted_attempt(quiz=quiz, learner_id=learner.pk).number == expected


def test_a_tie_on_best_keeps_the_earlier_attempt():
    learner = UserFactory()
    quiz = QuizFactory(mode=Quiz.Mode.HOMEWORK)
    closed(quiz, learner, 1, 0.8, minutes_ago=30)
    closed(quiz, learner, 2, 0.8, minutes_ago=20)
    assert counted_attempt(quiz=quiz, learner_id=learner.pk).number == 1


def test_held_open_and_other_learners_attempts_do_not_count():
    learner, other = UserFactory(), UserFactory()
    quiz = QuizFactory(mode=Quiz.Mode.EXAM)
    closed(quiz, learner, 1, 0.3, minutes_ago=30)
    closed(quiz, learner, 2, 1.0, minutes_ago=20, released=False)  # grade still held
    closed(quiz, other, 1, 1.0, minutes_ago=20)
    Attempt.objects.create(quiz=quiz, learner=learner, number=3)  # open
    assert counted_attempt(quiz=quiz, learner_id=learner.pk).number == 1
    assert counted_attempt(quiz=quiz, learner_id=UserFactory().pk) is None
