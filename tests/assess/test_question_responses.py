"""assess.selectors.attempt_rows.question_responses (an autosave's read of what is saved)
held to the queryset it replaced."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from assess.models import Response
from assess.selectors.attempt_rows import question_responses
from assess.services.attempts import attempt_start
from tests.factories import QuizFactory, UserFactory
from tests.sql_twins import assert_same_lists

pytestmark = pytest.mark.django_db


def _response(question, part: str, raw: str, at, *, valid=True) -> Response:
    return Response.objects.create(
        attempt=question.attempt, question=question, part=part, raw=raw, valid=valid,
        correct=valid and raw == "1", score=1.0 if raw == "1" else 0.0,
        parsed_value={"v": raw} if valid else None, created_at=at,
        idempotency_key=f"k-{question.pk}-{raw}-{at.timestamp()}",
    )  # fmt: skip


@pytest.mark.parametrize("shape", ["none", "one", "several, same instant", "another's too"])
def test_a_question_s_responses_are_what_its_queryset_reads(shape):
    quiz = QuizFactory(slots=[["weights-memory"], ["weights-memory"]])
    attempt, _ = attempt_start(quiz=quiz, learner=UserFactory())
    q, other = list(attempt.questions.order_by("order"))
    part = q.answers[0]["name"]
    t0 = timezone.now().replace(microsecond=0)
    if shape != "none":
        _response(q, part, "1", t0)
    if shape == "several, same instant":  # stored order: time, then id
        _response(q, part, "x", t0, valid=False)
        _response(q, part, "2", t0 - timedelta(seconds=3))
    if shape == "another's too":
        _response(other, part, "1", t0)
    want = list(Response.objects.filter(question=q).order_by("created_at", "id"))
    got = question_responses(q.pk)
    assert len(got) == {"none": 0, "one": 1, "several, same instant": 3}.get(shape, 1)
    assert_same_lists(got, want)
