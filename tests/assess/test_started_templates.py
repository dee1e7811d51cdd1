"""The templates each learner has answered (assess.models.started), kept by a trigger on
the answers table: every way an answer is stored marks its template, once, for its own
learner, and nothing else does. Run on SQLite by `make test` and on PostgreSQL by
.ci/run's second pass (the two databases have their own trigger)."""

from __future__ import annotations

import importlib

import pytest
from django.db import connection

from assess.models import Question, Quiz, Response, StartedTemplate
from assess.services.attempts import attempt_start
from assess.services.responses import response_submit
from tests.assess.helpers import correct_text, wrong_text
from tests.factories import QuizFactory, UserFactory

pytestmark = pytest.mark.django_db

migration = importlib.import_module("assess.migrations.0022_started_templates")


def started() -> set[tuple[str, str]]:
    return {
        (username, slug)
        for username, slug in StartedTemplate.objects.values_list(
            "learner__username", "template_slug"
        )
    }


def submit(attempt, question, text, key):
    part = question.answers[0]
    return response_submit(
        attempt=attempt, question=question, part=part["name"], text=text(part), idempotency_key=key
    )


@pytest.mark.parametrize("mode", [Quiz.Mode.EXAM, Quiz.Mode.HOMEWORK, Quiz.Mode.PRACTICE])
def test_an_answer_marks_its_template_for_its_learner_once(learner, other_learner, mode):
    quiz = QuizFactory(mode=mode, tries_per_part=3, slots=[["gb-gib"], ["weights-memory"]])
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    attempt_start(quiz=quiz, learner=other_learner)  # started, nothing answered
    gb, weights = attempt.questions.order_by("order")
    assert started() == set()  # a question shown is not a question answered
    submit(attempt, gb, wrong_text, "1")  # a first try
    assert started() == {("learner", "gb-gib")}
    submit(attempt, gb, correct_text, "2")  # a later try (an exam's second save)
    submit(attempt, gb, correct_text, "2")  # a replay stores nothing
    assert started() == {("learner", "gb-gib")}
    submit(attempt, weights, correct_text, "3")
    assert started() == {("learner", "gb-gib"), ("learner", "weights-memory")}


def test_answers_stored_any_other_way_mark_their_templates(learner, other_learner):
    """The ORM's create and a multi-row INSERT (bulk_create, as the scale data's COPY)."""
    quiz = QuizFactory(slots=[["gb-gib"], ["weights-memory"]])
    mine, _ = attempt_start(quiz=quiz, learner=learner)
    theirs, _ = attempt_start(quiz=quiz, learner=other_learner)

    def response(question: Question, key: str) -> Response:
        return Response(attempt_id=question.attempt_id, question=question, part="p", raw="1",
                        correct=True, score=1.0, idempotency_key=key)  # fmt: skip

    gb = mine.questions.get(template_slug="gb-gib")
    response(gb, "a").save()
    assert started() == {("learner", "gb-gib")}
    Response.objects.bulk_create(
        [response(q, f"b{q.pk}") for q in [*mine.questions.all(), *theirs.questions.all()]]
    )
    assert started() == {
        (who, slug) for who in ("learner", "other") for slug in ("gb-gib", "weights-memory")
    }


def test_the_backfill_marks_what_the_trigger_marked(learner, other_learner):
    """The migration's reading of the answers stored before it gives the same rows."""
    quiz = QuizFactory(mode=Quiz.Mode.HOMEWORK, slots=[["gb-gib"], ["weights-memory"]])
    for who in (learner, other_learner):
        attempt, _ = attempt_start(quiz=quiz, learner=who)
        submit(attempt, attempt.questions.get(order=1), correct_text, f"{who.pk}")
    attempt_start(quiz=QuizFactory(slots=[["kv-cache-total"]]), learner=UserFactory())
    marked = started()
    assert len(marked) == 2
    StartedTemplate.objects.all().delete()
    with connection.cursor() as cursor:
        cursor.execute(migration.BACKFILL)
    assert started() == marked


def test_a_learner_s_rows_go_with_the_learner(learner):
    quiz = QuizFactory(mode=Quiz.Mode.HOMEWORK, slots=[["gb-gib"]])
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    submit(attempt, attempt.questions.get(), correct_text, "1")
    assert started() == {("learner", "gb-gib")}
    learner.delete()
    assert not StartedTemplate.objects.exists()
