"""Submitting an answer: grade with the engine, store once, learn from honest evidence."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from api_common.rows import insert, inserted
from api_common.service_errors import Conflict, IdempotencyMismatch, InvalidInput, UnreadableAnswer
from assess import skills as skill_map
from assess.models import RESPONSE_KEYS, Attempt, Question, Response, Reveal
from assess.policy import part_policy
from assess.scoring import Rules
from assess.selectors.locked import locked_state
from assess.services.first_tries import first_try_store
from assess.services.held_answers import held_answer_store, takes_held_answers
from assess.services.part_checks import check_not_drill, check_question_of
from config.metrics import answer_saved
from problems.engine.variants import Variant


@dataclass(frozen=True)
class Submission:
    response: Response
    replayed: bool  # True: this idempotency key was seen before; nothing new was stored
    # The question's valid responses and reveals as they stand after this submission,
    # so a caller can show the question under the feedback policy without reading again
    # (None on a replay: read them). The earlier tries have selectors.attempt_rows.TRY_FIELDS
    # loaded (the others are deferred).
    responses: list[Response] | None = None
    reveals: list[Reveal] | None = None


def _replay(attempt: Attempt, key: str, question: Question, part: str, text: str):
    """The first result stored under this key in the attempt, or None. The same key with
    another question, part or answer is a client bug that would silently lose the new
    answer: IdempotencyMismatch, and the first result stays as it was."""
    earlier = Response.objects.filter(attempt_id=attempt.pk, idempotency_key=key).first()
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
    """Under the attempt lock: refuse a try the quiz's rules do not allow (Conflict): the
    part policy decides, for an exam's saves (their ceiling) as for tries. Returns True
    when this try is the part's first under immediate feedback, which is mastery
    evidence (an exam's saves are not until the grades are released)."""
    rules = Rules.of(attempt.quiz)
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
        raise Conflict(policy.closed_message)
    return not earlier and not rules.deferred


def response_values(attempt, question, part, text, result, now, time_spent_ms, key) -> dict:
    """A valid answer's row, by attname, but for its `evidence`."""
    return {
        "attempt_id": attempt.pk,
        "question_id": question.pk,
        "part": part,
        "raw": text,
        "parsed_value": result.parsed_value,
        "parsed_unit": result.parsed_unit or "",
        "valid": True,
        "correct": result.correct,
        "score": result.score,
        "misconception": result.misconception or "",
        "feedback": result.feedback,
        "created_at": now,
        "time_spent_ms": time_spent_ms,
        "idempotency_key": key,
    }


def _stored(pk: int, values: dict, *, evidence: bool) -> Response:
    return inserted(Response, pk, {**values, "evidence": evidence})


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
      must not cost a try or count twice in mastery), also under a race: the INSERT
      itself decides (ON CONFLICT on the attempt's keys), and a refused answer looks
      its key up before refusing, so a replay answers as the first time did even after
      the part or the attempt closed. The same key with a different answer raises
      IdempotencyMismatch.
    - With immediate feedback a part closed by a correct try, a reveal or its last
      allowed try raises Conflict; the first try of a part updates mastery. With
      deferred feedback nothing reaches mastery until the grades are released.
    - An unreadable answer raises UnreadableAnswer and stores nothing: it costs no try.
    - After the deadline or the finish it raises Conflict, whether or not the expiry
      task has run yet.

    Writers of one attempt queue on its row (the finish, the expiry, an extension and
    a new variant lock it too), so the rules are decided on what is stored. In the
    transaction a first try costs: the lock read (attempt state, the question's tries,
    whether it has reveals, the learner's rows for its skills), the INSERT, the skill
    rows' upsert and their events; a later try, the lock read and the INSERT. An answer
    to an exam (deferred feedback, fixed questions) is one statement outside any
    transaction, which falls back to this path when it stores nothing
    (services.held_answers).
    """
    now = now or timezone.now()
    check_question_of(attempt, question)
    check_not_drill(question)
    result = None
    if question.part(part) is not None:
        variant = Variant.from_params(
            question.template_slug, question.params, question.template_version
        )
        result = variant.grade(part, text)
    if result is not None and result.valid and takes_held_answers(attempt, question):
        values = response_values(
            attempt, question, part, text, result, now, time_spent_ms, idempotency_key
        )
        held = held_answer_store(attempt=attempt, values={**values, "evidence": False}, now=now)
        if held is not None:
            pk, earlier = held
            response = _stored(pk, values, evidence=False)
            tries = sorted([*earlier, response], key=lambda r: (r.created_at, r.pk))
            answer_saved(valid=True, correct=response.correct)
            return Submission(response, replayed=False, responses=tries, reveals=[])
        # Nothing stored (the attempt is over or held by another writer, or the key was
        # used): the general path below stores, refuses, replays or reports the mismatch.
    skills = skill_map.template_skills(question.template_slug)

    with transaction.atomic():
        state = locked_state(attempt=attempt, question=question, skills=skills)
        attempt.status, attempt.deadline = state.status, state.deadline
        reveals = list(question.reveals.all()) if state.revealed else []
        try:
            if not attempt.is_open:
                raise Conflict("This attempt is finished; it takes no more answers.")
            if attempt.past_deadline(now):
                raise Conflict("The deadline of this attempt has passed.")
            if not state.active:
                raise Conflict("This question was replaced by a new variant; answer that one.")
            if result is None:
                names = ", ".join(p["name"] for p in question.answers)
                raise InvalidInput(
                    f"Unknown part {part!r}; this question's parts are: {names}.", field="part"
                )
            if not result.valid:
                answer_saved(valid=False, correct=False)
                raise UnreadableAnswer(result.error or result.feedback)
            # A hint on the question (under the lock, so before this try) showed part of
            # its solution: the first try after it is no evidence (services.mastery).
            first_try = _check_part_open(attempt, question, part, state.tries, reveals)
            first_try = first_try and not state.hinted
        except (Conflict, InvalidInput, UnreadableAnswer):
            replay = _replay(attempt, idempotency_key, question, part, text)
            if replay is not None:
                return replay
            raise
        values = response_values(
            attempt, question, part, text, result, now, time_spent_ms, idempotency_key
        )
        if first_try:
            response = first_try_store(
                learner_id=attempt.learner_id,
                question=question,
                values={**values, "evidence": True},
                read=state.skill_rows,
            )
        else:
            pk = insert(Response, {**values, "evidence": False}, conflict=RESPONSE_KEYS)
            response = None if pk is None else _stored(pk, values, evidence=False)
        if response is None:  # the key was stored before: a replay (or a mismatch)
            replay = _replay(attempt, idempotency_key, question, part, text)
            if replay is None:  # its row was rolled back since: nothing stands
                raise Conflict("This answer crossed another sent with its key; send it again.")
            return replay
    answer_saved(valid=True, correct=response.correct)
    return Submission(response, replayed=False, responses=[*state.tries, response], reveals=reveals)
