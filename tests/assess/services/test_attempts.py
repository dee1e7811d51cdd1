"""attempt_start, attempt_finish, attempts_expire and the scoring they store."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from api_common.service_errors import Conflict
from assess.models import Attempt, Quiz, Slot
from assess.services.attempts import attempt_finish, attempt_start, attempts_expire
from assess.services.responses import response_submit
from tests.assess.helpers import correct_text, wrong_text
from tests.factories import QuizFactory

pytestmark = pytest.mark.django_db


def submit(attempt, question, part_name, text, key):
    return response_submit(
        attempt=attempt, question=question, part=part_name, text=text, idempotency_key=key
    )


def test_start_creates_one_question_per_slot_in_order(learner):
    quiz = QuizFactory(slots=[["gb-gib"], ["weights-memory"], ["kv-cache-total"]])
    attempt, created = attempt_start(quiz=quiz, learner=learner)
    assert created and attempt.number == 1 and attempt.deadline is None
    assert [(q.order, q.template_slug) for q in attempt.questions.all()] == [
        (1, "gb-gib"),
        (2, "weights-memory"),
        (3, "kv-cache-total"),
    ]


def test_expired_open_attempt_is_closed_before_a_new_start(learner):
    quiz = QuizFactory(mode=Quiz.Mode.EXAM, time_limit=timedelta(minutes=1))
    first, _ = attempt_start(quiz=quiz, learner=learner)
    Attempt.objects.filter(pk=first.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    second, created = attempt_start(quiz=quiz, learner=learner)
    assert created and second.number == 2
    first.refresh_from_db()
    assert first.status == Attempt.Status.EXPIRED


def test_attempts_allowed_counts_expired_attempts(learner):
    quiz = QuizFactory(mode=Quiz.Mode.EXAM, attempts_allowed=1, time_limit=timedelta(minutes=1))
    first, _ = attempt_start(quiz=quiz, learner=learner)
    Attempt.objects.filter(pk=first.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    with pytest.raises(Conflict, match="1 attempt"):
        attempt_start(quiz=quiz, learner=learner)


def test_scores_weight_parts_and_points(learner):
    quiz = QuizFactory(
        mode=Quiz.Mode.HOMEWORK,
        tries_per_part=3,
        slots=[{"templates": ["roofline-attainable"], "points": 3}, {"templates": ["gb-gib"]}],
    )
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    roofline, gb = attempt.questions.order_by("order")
    parts = roofline.answers
    assert len(parts) == 3 and all(p["weight"] == 1.0 for p in parts)
    # Two of three parts right; the first try at one of them was wrong, then fixed (no
    # penalty by default, so it earns full credit).
    submit(attempt, roofline, parts[0]["name"], wrong_text(parts[0]), "1")
    submit(attempt, roofline, parts[0]["name"], correct_text(parts[0]), "2")
    submit(attempt, roofline, parts[1]["name"], correct_text(parts[1]), "3")
    submit(attempt, gb, gb.answers[0]["name"], correct_text(gb.answers[0]), "4")
    # A solved part takes no more tries: a worse one later cannot be stored.
    with pytest.raises(Conflict):
        submit(attempt, gb, gb.answers[0]["name"], wrong_text(gb.answers[0]), "5")
    assert attempt.responses.count() == 4
    done = attempt_finish(attempt=attempt)
    assert done.status == Attempt.Status.FINISHED
    assert done.points == pytest.approx(3 * 2 / 3 + 1)
    assert done.score == pytest.approx(3 / 4)
    assert done.passed is True


def test_exam_counts_the_last_saved_answer_even_when_worse(learner):
    quiz = QuizFactory(
        mode=Quiz.Mode.EXAM,
        slots=[{"templates": ["roofline-attainable"], "points": 3}, {"templates": ["gb-gib"]}],
    )
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    roofline, gb = attempt.questions.order_by("order")
    parts = roofline.answers
    submit(attempt, roofline, parts[0]["name"], wrong_text(parts[0]), "1")
    submit(attempt, roofline, parts[0]["name"], correct_text(parts[0]), "2")
    submit(attempt, roofline, parts[1]["name"], correct_text(parts[1]), "3")
    submit(attempt, gb, gb.answers[0]["name"], correct_text(gb.answers[0]), "4")
    submit(attempt, gb, gb.answers[0]["name"], wrong_text(gb.answers[0]), "5")
    done = attempt_finish(attempt=attempt)
    assert done.points == pytest.approx(3 * 2 / 3)
    assert done.score == pytest.approx(2 / 4)
    assert done.passed is True


def test_part_weights_are_respected(learner):
    attempt, _ = attempt_start(quiz=QuizFactory(slots=[["roofline-attainable"]]), learner=learner)
    question = attempt.questions.get()
    question.answers[2]["weight"] = 2.0  # as a template with a heavier part would store it
    question.save()
    part = question.answers[2]
    submit(attempt, question, part["name"], correct_text(part), "w")
    assert attempt_finish(attempt=attempt).score == pytest.approx(2 / 4)


def test_finish_twice_conflicts(learner):
    attempt, _ = attempt_start(quiz=QuizFactory(), learner=learner)
    attempt_finish(attempt=attempt)
    with pytest.raises(Conflict):
        attempt_finish(attempt=attempt)


def test_expire_only_touches_attempts_past_their_deadline(learner, other_learner):
    quiz = QuizFactory(mode=Quiz.Mode.EXAM, time_limit=timedelta(minutes=10))
    due, _ = attempt_start(quiz=quiz, learner=learner)
    running, _ = attempt_start(quiz=quiz, learner=other_learner)
    Attempt.objects.filter(pk=due.pk).update(deadline=timezone.now() - timedelta(seconds=5))
    assert attempts_expire() == 1
    assert attempts_expire() == 0
    due.refresh_from_db()
    running.refresh_from_db()
    assert due.status == Attempt.Status.EXPIRED and due.score == 0.0
    assert running.status == Attempt.Status.OPEN


def test_slot_pool_is_validated():
    from django.core.exceptions import ValidationError

    slot = Slot(quiz=QuizFactory(slots=[]), order=1, templates=["gb-gib", "nope"])
    with pytest.raises(ValidationError, match="nope"):
        slot.full_clean()
