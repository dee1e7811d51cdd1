"""Submitting an answer: grade with the engine, store once, update mastery."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from assess.errors import Conflict, InvalidInput, UnreadableAnswer
from assess.models import Attempt, Question, Response
from assess.services.mastery import mastery_record_response
from assess.services.questions import lock_open_attempt
from problems.engine.variants import Variant


@dataclass(frozen=True)
class Submission:
    response: Response
    replayed: bool  # True: this idempotency key was seen before; nothing new was stored


def _stored(attempt: Attempt, key: str) -> Response | None:
    return Response.objects.filter(attempt=attempt, idempotency_key=key).first()


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
      must not cost a try or count twice in mastery), also under a race: the unique
      constraint decides, and the loser returns the winner's row.
    - An unreadable answer raises UnreadableAnswer and stores nothing: it costs no try.
    - After the deadline or the finish it raises Conflict, whether or not the expiry
      task has run yet.
    Grading runs before the lock is taken, so the lock is held only for the writes.
    """
    now = now or timezone.now()
    earlier = _stored(attempt, idempotency_key)
    if earlier is not None:
        return Submission(earlier, replayed=True)
    if question.attempt_id != attempt.pk:
        raise InvalidInput("That question is not part of this attempt.")
    if not attempt.is_open:
        raise Conflict("This attempt is finished; it takes no more answers.")
    if attempt.past_deadline(now):
        raise Conflict("The deadline of this attempt has passed.")
    if not question.active:
        raise Conflict("This question was replaced by a new variant; answer that one.")
    if question.part(part) is None:
        names = ", ".join(p["name"] for p in question.answers)
        raise InvalidInput(f"Unknown part {part!r}; this question's parts are: {names}.")

    result = Variant.from_params(question.template_slug, question.params).grade(part, text)
    if not result.valid:
        raise UnreadableAnswer(result.error or result.feedback)

    with transaction.atomic():
        locked = lock_open_attempt(attempt, now)
        earlier = _stored(locked, idempotency_key)
        if earlier is not None:
            return Submission(earlier, replayed=True)
        try:
            with transaction.atomic():
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
                )
        except IntegrityError:
            earlier = _stored(locked, idempotency_key)
            if earlier is None:
                raise
            return Submission(earlier, replayed=True)
        mastery_record_response(response=response, question=question)
    return Submission(response, replayed=False)
