"""response_submit: refusals that store nothing, idempotency, and the stored fields,
for a practice quiz (the general path) and an exam (one guarded statement first:
services.held_answers, which hands every refusal to the general path)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from api_common.service_errors import Conflict, IdempotencyMismatch, InvalidInput, UnreadableAnswer
from assess.models import Attempt, Response
from assess.services import responses
from assess.services.attempts import attempt_start
from assess.services.responses import response_submit
from tests.assess.helpers import correct_text, wrong_text
from tests.factories import QuizFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(params=["practice", "exam"])
def mode(request) -> str:
    return request.param


@pytest.fixture
def started(learner, mode):
    quiz = QuizFactory(mode=mode, slots=[["weights-memory"]])
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
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
        attempt=attempt,
        question=question,
        part=part["name"],
        text=correct_text(part),
        idempotency_key="a",
    )
    assert again.replayed and again.response.pk == first.response.pk
    # Another answer under the same key is refused, after the finish too.
    with pytest.raises(IdempotencyMismatch):
        response_submit(
            attempt=attempt, question=question, part=part["name"], text="1 GB", idempotency_key="a"
        )


@pytest.mark.parametrize("change", ["text", "part", "question"])
def test_a_key_reused_for_another_answer_is_refused_and_the_first_stands(learner, change, mode):
    quiz = QuizFactory(mode=mode, slots=[["roofline-attainable"], ["roofline-attainable"]])
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    q1, q2 = attempt.questions.order_by("order")
    numeric = [p for p in q1.answers if p["kind"] != "choice"]
    p1, p2 = numeric[0], numeric[1]
    first = response_submit(
        attempt=attempt, question=q1, part=p1["name"], text=wrong_text(p1), idempotency_key="k"
    )
    other = {
        "text": (q1, p1["name"], correct_text(p1)),
        "part": (q1, p2["name"], wrong_text(p1)),
        "question": (q2, p1["name"], wrong_text(p1)),
    }[change]
    with pytest.raises(IdempotencyMismatch):
        response_submit(
            attempt=attempt,
            question=other[0],
            part=other[1],
            text=other[2],
            idempotency_key="k",
        )
    [stored] = Response.objects.all()
    assert stored.pk == first.response.pk
    assert (stored.question_id, stored.part, stored.raw, stored.correct) == (
        q1.pk,
        p1["name"],
        wrong_text(p1),
        False,
    )


def test_a_lost_insert_race_returns_the_winner(started, monkeypatch):
    """Both checks miss the other request's row (it committed in between): the unique
    constraint refuses the insert inside a savepoint and the stored row is returned."""
    attempt, question, part = started
    # A wrong first try, so the part (practice, unlimited tries) still takes tries.
    first = response_submit(
        attempt=attempt,
        question=question,
        part=part["name"],
        text=wrong_text(part),
        idempotency_key="a",
    )
    real = responses._replay
    misses = iter([None, None])
    monkeypatch.setattr(responses, "_replay", lambda *args: next(misses, None) or real(*args))
    again = response_submit(
        attempt=attempt,
        question=question,
        part=part["name"],
        text=wrong_text(part),
        idempotency_key="a",
    )
    assert again.replayed and again.response.pk == first.response.pk
    assert Response.objects.count() == 1
    # The transaction survived the refused insert: the attempt still takes answers.
    response_submit(
        attempt=attempt,
        question=question,
        part=part["name"],
        text=correct_text(part),
        idempotency_key="b",
    )
    assert Response.objects.count() == 2


def _answer(attempt, question, part, key="a"):
    return response_submit(
        attempt=attempt,
        question=question,
        part=part["name"],
        text=correct_text(part),
        idempotency_key=key,
    )


@pytest.mark.parametrize("mode", ["exam"])
def test_an_exam_answer_takes_no_transaction_and_no_locked_read(started, monkeypatch):
    """An exam's answer is stored by one statement (services.held_answers): the general
    path's transaction and locked read are not reached, and the result carries the
    question's saves as stored, the new one last."""
    attempt, question, part = started

    def general_path(**kwargs):
        raise AssertionError("the general path ran")

    monkeypatch.setattr(responses, "locked_state", general_path)
    first = _answer(attempt, question, part, key="a")
    second = _answer(attempt, question, part, key="b")
    assert not second.replayed and second.reveals == []
    assert [r.pk for r in second.responses] == [first.response.pk, second.response.pk]
    stored = Response.objects.get(pk=second.response.pk)
    assert (stored.evidence, stored.correct, stored.raw) == (False, True, correct_text(part))
    assert stored.created_at == second.response.created_at


@pytest.mark.parametrize("mode", ["exam"])
@pytest.mark.parametrize("closed", ["finished", "deadline", "key"])
def test_an_exam_answer_the_statement_refuses_goes_the_general_way(started, monkeypatch, closed):
    """Whatever the one statement does not store, the general path decides: a Conflict
    for an attempt finished or past its deadline as stored, a replay for a used key."""
    attempt, question, part = started
    if closed == "key":
        _answer(attempt, question, part, key="k")
    elif closed == "finished":
        Attempt.objects.filter(pk=attempt.pk).update(status=Attempt.Status.FINISHED)
    else:
        Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now())
    reached = []
    real = responses.locked_state
    monkeypatch.setattr(responses, "locked_state", lambda **kw: reached.append(1) or real(**kw))
    if closed == "key":
        assert _answer(attempt, question, part, key="k").replayed
    else:
        with pytest.raises(Conflict):
            _answer(attempt, question, part)
    assert reached == [1]
    assert Response.objects.count() == (1 if closed == "key" else 0)


@pytest.mark.parametrize("mode", ["practice"])
def test_a_practice_answer_takes_the_general_path(started, monkeypatch):
    """Practice questions can be replaced and their parts have tries: the locked read
    decides them, never the exam's one statement."""
    attempt, question, part = started
    monkeypatch.setattr(responses, "held_answer_store", lambda **kw: pytest.fail(str(kw)))
    assert not _answer(attempt, question, part).replayed
    assert Response.objects.get().evidence  # a first try under immediate feedback
