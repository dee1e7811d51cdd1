"""GET /api/quizzes/{id}/items/: per-template item statistics."""

from __future__ import annotations

import numpy as np
import pytest

from assess.models import Quiz
from assess.services.attempts import attempt_finish, attempt_start
from assess.services.responses import response_submit
from tests.assess.helpers import correct_text, rows_of, wrong_text
from tests.factories import QuizFactory, UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.assess.urls")]

# Per learner: (gb-gib right?, weights-memory right?, ms spent on each).
SCRIPT = [(True, True, 1000), (True, False, 3000), (False, False, 2000), (True, True, 5000)]


def test_item_statistics(client_for, instructor, course):
    quiz = QuizFactory(
        mode=Quiz.Mode.HOMEWORK, course=course, slots=[["gb-gib"], ["weights-memory"]]
    )
    for i, (gb_ok, weights_ok, ms) in enumerate(SCRIPT):
        attempt, _ = attempt_start(quiz=quiz, learner=UserFactory(username=f"l{i}"))
        for question, ok in zip(
            attempt.questions.order_by("order"), (gb_ok, weights_ok), strict=True
        ):
            part = question.answers[0]
            text = correct_text(part) if ok else wrong_text(part)
            if question.template_slug == "weights-memory" and not ok:
                # A recognisable mistake: the weights in GiB where GB was asked (or back).
                factor = 1.024**3 if part["unit"] == "GB" else 1 / 1.024**3
                text = f"{part['value'] / factor!r} {part['unit']}"
            response_submit(
                attempt=attempt,
                question=question,
                part=part["name"],
                text=text,
                idempotency_key=f"k{question.pk}",
                time_spent_ms=ms,
            )
        attempt_finish(attempt=attempt)

    rows = rows_of(client_for(instructor).get(f"/api/quizzes/{quiz.pk}/items/"))
    by_slug = {row["template"]: row for row in rows}
    assert list(by_slug) == ["gb-gib", "weights-memory"]
    gb, weights = by_slug["gb-gib"], by_slug["weights-memory"]
    assert gb["responses"] == 4 and gb["questions"] == 4
    assert gb["proportion_correct"] == 0.75
    assert weights["proportion_correct"] == 0.5
    assert gb["median_time_spent_ms"] == 2500

    totals = [(a + b) / 2 for a, b, _ in SCRIPT]
    for row, index in ((gb, 0), (weights, 1)):
        xs = [float(s[index]) for s in SCRIPT]
        assert row["discrimination"] == pytest.approx(np.corrcoef(xs, totals)[0, 1])
    assert weights["misconceptions"] == [{"code": "gb-vs-gib", "count": 2}]
    assert gb["misconceptions"] == []


def test_discrimination_is_null_without_spread(client_for, staff):
    quiz = QuizFactory(mode=Quiz.Mode.HOMEWORK, slots=[["gb-gib"]])
    for i in range(2):
        attempt, _ = attempt_start(quiz=quiz, learner=UserFactory(username=f"x{i}"))
        question = attempt.questions.get()
        part = question.answers[0]
        response_submit(
            attempt=attempt,
            question=question,
            part=part["name"],
            text=correct_text(part),
            idempotency_key="k",
        )
        attempt_finish(attempt=attempt)
    [row] = rows_of(client_for(staff).get(f"/api/quizzes/{quiz.pk}/items/"))
    assert row["proportion_correct"] == 1.0
    assert row["discrimination"] is None
    assert row["median_time_spent_ms"] is None


def test_an_open_attempt_counts_nowhere_until_it_closes(client_for, instructor, course):
    """A deferred-feedback exam taken by an instructor of the course: the item analysis
    must not tell them whether their own open answer is right (it was: responses 1,
    proportion_correct 1.0), nor show anyone an open attempt's answers; at the finish
    the attempt counts."""
    from assess.models import Enrolment

    quiz = QuizFactory(mode=Quiz.Mode.EXAM, course=course, slots=[["gb-gib"]])
    Enrolment.objects.create(user=instructor, course=course, source=Enrolment.Source.SELF)
    attempt, _ = attempt_start(quiz=quiz, learner=instructor)
    question = attempt.questions.get()
    part = question.answers[0]
    response_submit(
        attempt=attempt,
        question=question,
        part=part["name"],
        text=correct_text(part),
        idempotency_key="own",
    )
    url = f"/api/quizzes/{quiz.pk}/items/"
    teacher = client_for(instructor)
    assert [(r["responses"], r["proportion_correct"]) for r in rows_of(teacher.get(url))] == []
    attempt_finish(attempt=attempt)
    [row] = rows_of(teacher.get(url))
    assert (row["responses"], row["proportion_correct"], row["questions"]) == (1, 1.0, 1)
