"""Submitting an answer: grade with the engine, store once, learn from honest evidence."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from assess.errors import Conflict, IdempotencyMismatch, InvalidInput, UnreadableAnswer
from assess.models import Attempt, Question, Response, Reveal
from assess.policy import CLOSED_MESSAGES, part_policy
from assess.scoring import Rules
from assess.services.mastery import mastery_apply
from problems.engine.variants import Variant


@dataclass(frozen=True)
class Submission:
    response: Response
    replayed: bool  # True: this idempotency key was seen before; nothing new was stored
    # The question's valid responses and reveals as they stand after this submission,
    # so a caller can show the question under the feedback policy without reading again
    # (None on a replay: read them).
    responses: list[Response] | None = None
    reveals: list[Reveal] | None = None


def _replay(read: list[Response], key: str, question: Question, part: str, text: str):
    """The first result stored under this key (among the rows read), or None. The same
    key with another question, part or answer is a client bug that would silently lose
    the new answer: IdempotencyMismatch, and the first result stays as it was."""
    earlier = next((r for r in read if r.idempotency_key == key), None)
    if earlier is None:
        return None
    if (earlier.question_id, earlier.part, earlier.raw) != (question.pk, part, text):
        raise IdempotencyMismatch(
            "This idempotency key was used for a different answer; send a new key."
        )
    return Submission(earlier, replayed=True)


def _check_part_open(
    attempt: Attempt, question: Question, part: str, responses: list[Response], reveals
) -> bool:
    """Under the attempt lock: refuse a try the quiz's rules do not allow (Conflict).
    Returns True when this try is the part's first, which is mastery evidence under
    immediate feedback."""
    rules = Rules.of(attempt.quiz)
    if rules.deferred:
        return False  # exams: change answers freely; the counted one is applied at release
    earlier = [r for r in responses if r.part == part]
    policy = part_policy(
        name=part,
        tries=earlier,
        revealed=any(r.part == part for r in reveals),
        rules=rules,
        over=False,
        grades=True,
        learner=True,
    )
    if policy.closed is not None:
        raise Conflict(CLOSED_MESSAGES[policy.closed])
    return not earlier


def response_submit(
    *,
    attempt: Attempt,
    question: Question,
    part: str,
    text: str,
    idempotency_key: str,
    time_spent_ms: int | None = None,
    now: datetime | None = None,
) -> Submission:
    """Grade and store one answer to one part.

    - A key seen before returns the first result and stores nothing (a retried request
      must not cost a try or count twice in mastery), also under a race: writers of one
      attempt queue on its row lock, and the key is looked up under it (the unique
      constraint stays as the backstop). The same key with a different answer raises
      IdempotencyMismatch.
    - With immediate feedback a part closed by a correct try, a reveal or its last
      allowed try raises Conflict; the first try of a part updates mastery. With
      deferred feedback nothing reaches mastery until the grades are released.
    - An unreadable answer raises UnreadableAnswer and stores nothing: it costs no try.
    - After the deadline or the finish it raises Conflict, whether or not the expiry
      task has run yet.
    Grading runs before the lock is taken. A steady-state first try costs, inside the
    transaction: the lock, one read of tries and key, reveals, the INSERT and mastery.
    """
    now = now or timezone.now()
    if question.attempt_id != attempt.pk:
        raise InvalidInput("That question is not part of this attempt.", field="question")
    # Graded before the lock, so the lock is held only for the reads and writes.
    result = None
    if question.part(part) is not None:
        result = Variant.from_params(question.template_slug, question.params).grade(part, text)

    with transaction.atomic():
        # Concurrent writers of one attempt queue on its row, so the replay decision
        # and the INSERT below cannot race: no savepoint is needed around the INSERT.
        locked = Attempt.objects.select_for_update().get(pk=attempt.pk)
        # The quiz the caller read with the attempt (its rules do not change mid-answer).
        locked.quiz = attempt.quiz
        # One read gives the question's valid tries and the row stored under this key,
        # whichever question it was for: a replay stores nothing and answers as the
        # first time did, even after the attempt has closed.
        read = list(
            Response.objects.filter(attempt=locked)
            .filter(Q(question=question, valid=True) | Q(idempotency_key=idempotency_key))
            .order_by("created_at", "id")
        )
        replay = _replay(read, idempotency_key, question, part, text)
        if replay is not None:
            return replay
        if not locked.is_open:
            raise Conflict("This attempt is finished; it takes no more answers.")
        if locked.past_deadline(now):
            raise Conflict("The deadline of this attempt has passed.")
        if not question.active:
            raise Conflict("This question was replaced by a new variant; answer that one.")
        if result is None:
            names = ", ".join(p["name"] for p in question.answers)
            raise InvalidInput(
                f"Unknown part {part!r}; this question's parts are: {names}.", field="part"
            )
        if not result.valid:
            raise UnreadableAnswer(result.error or result.feedback)
        responses = [r for r in read if r.question_id == question.pk and r.valid]
        reveals = list(question.reveals.all())
        first_try = _check_part_open(locked, question, part, responses, reveals)
        response = Response.objects.create(
            attempt=locked,
            question=question,
            part=part,
            raw=text,
            parsed_value=result.parsed_value,
            parsed_unit=result.parsed_unit or "",
            valid=True,
            correct=result.correct,
            score=result.score,
            misconception=result.misconception or "",
            feedback=result.feedback,
            created_at=now,
            time_spent_ms=time_spent_ms,
            idempotency_key=idempotency_key,
            evidence=first_try,
        )
        if first_try:
            mastery_apply(learner_id=locked.learner_id, evidence=[(response, question)])
    return Submission(response, replayed=False, responses=[*responses, response], reveals=reveals)
