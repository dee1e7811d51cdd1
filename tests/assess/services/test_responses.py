"""response_submit: refusals that store nothing, idempotency, and the stored fields."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from assess.errors import Conflict, InvalidInput, UnreadableAnswer
from assess.models import Attempt, Response
from assess.services import responses
from assess.services.attempts import attempt_start
from assess.services.responses import response_submit
from tests.assess.helpers import correct_text
from tests.factories import QuizFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def started(learner):
    attempt, _ = attempt_start(quiz=QuizFactory(slots=[["weights-memory"]]), learner=learner)
    question = attempt.questions.get()
    return attempt, question, question.answers[0]


def test_stores_the_grade(started):
    attempt, question, part = started
    result = response_submit(
        attempt=attempt,
        question=question,
        part=part["name"],
        text=correct_text(part),
        idempotency_key="a",
        time_spent_ms=4200,
    )
    r = Response.objects.get()
    assert not result.replayed and r == result.response
    assert (r.valid, r.correct, r.score, r.misconception) == (True, True, 1.0, "")
    assert r.parsed_value == pytest.approx(part["value"]) and r.parsed_unit == part["unit"]
    assert r.raw == correct_text(part) and r.time_spent_ms == 4200


def test_unreadable_raises_and_stores_nothing(started):
    attempt, question, part = started
    with pytest.raises(UnreadableAnswer):
        response_submit(
            attempt=attempt, question=question, part=part["name"], text="", idempotency_key="a"
        )
    assert not Response.objects.exists()


def test_unknown_part(started):
    attempt, question, _ = started
    with pytest.raises(InvalidInput, match="weights"):
        response_submit(attempt=attempt, question=question, part="x", text="1", idempotency_key="a")


def test_deadline_checked_under_the_lock_too(started):
    """A stale attempt object (still in time) does not get past the locked recheck."""
    attempt, question, part = started
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert attempt.deadline is None  # the caller's copy is stale
    with pytest.raises(Conflict, match="deadline"):
        response_submit(
            attempt=attempt,
            question=question,
            part=part["name"],
            text=correct_text(part),
            idempotency_key="a",
        )
    assert not Response.objects.exists()


def test_replay_returns_the_first_even_after_finish(started):
    attempt, question, part = started
    first = response_submit(
        attempt=attempt,
        question=question,
        part=part["name"],
        text=correct_text(part),
        idempotency_key="a",
    )
    Attempt.objects.filter(pk=attempt.pk).update(status=Attempt.Status.FINISHED)
    attempt.refresh_from_db()
    again = response_submit(
        attempt=attempt, question=question, part=part["name"], text="1 GB", idempotency_key="a"
    )
    assert again.replayed and again.response.pk == first.response.pk


def test_a_lost_insert_race_returns_the_winner(started, monkeypatch):
    """Both checks miss the other request's row (it committed in between): the unique
    constraint refuses the insert inside a savepoint and the stored row is returned."""
    attempt, question, part = started
    first = response_submit(
        attempt=attempt,
        question=question,
        part=part["name"],
        text=correct_text(part),
        idempotency_key="a",
    )
    real = responses._stored
    misses = iter([None, None])
    monkeypatch.setattr(responses, "_stored", lambda a, k: next(misses, None) or real(a, k))
    again = response_submit(
        attempt=attempt, question=question, part=part["name"], text="1 GB", idempotency_key="a"
    )
    assert again.replayed and again.response.pk == first.response.pk
    assert Response.objects.count() == 1
    # The transaction survived the refused insert: the attempt still takes answers.
    response_submit(
        attempt=attempt, question=question, part=part["name"], text="2 GB", idempotency_key="b"
    )
    assert Response.objects.count() == 2
