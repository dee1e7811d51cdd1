"""A first try stored with its mastery step (services.first_tries): one statement on
PostgreSQL, three on SQLite, and the same rows either way."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from api_common.service_errors import IdempotencyMismatch
from assess.mastery import bkt
from assess.models import MasteryEvent, Response, SkillMastery
from assess.services.attempts import attempt_start
from assess.services.first_tries import first_try_store
from assess.services.responses import response_submit
from problems.engine import registry
from tests.assess.helpers import correct_text, wrong_text
from tests.factories import QuizFactory

pytestmark = pytest.mark.django_db

P0 = bkt.DEFAULT_PARAMS.p_init


def _question(learner, slug="weights-memory"):
    quiz = QuizFactory(slots=[[slug]])
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    return attempt, attempt.questions.get()


def _submit(attempt, question, text: str, key: str):
    """Answer the question's first part through the service."""
    part = question.answers[0]["name"]
    return response_submit(
        attempt=attempt, question=question, part=part, text=text, idempotency_key=key
    )


def _values(attempt, question, part: str, key: str, *, correct: bool) -> dict:
    return {
        "attempt_id": attempt.pk,
        "question_id": question.pk,
        "part": part,
        "raw": "1 GB",
        "parsed_value": None,
        "parsed_unit": "",
        "valid": True,
        "correct": correct,
        "score": 1.0 if correct else 0.0,
        "misconception": "",
        "feedback": "",
        "created_at": timezone.now(),
        "time_spent_ms": None,
        "idempotency_key": key,
        "evidence": True,
    }


def test_a_first_try_steps_every_skill_and_logs_its_events(learner):
    attempt, question = _question(learner)
    part = question.answers[0]["name"]
    skills = sorted(registry.get("weights-memory").skills)
    with CaptureQueriesContext(connection) as ctx, transaction.atomic():
        response = first_try_store(
            learner_id=learner.pk,
            question=question,
            values=_values(attempt, question, part, "k", correct=True),
            read={},
        )
    writes = [q for q in ctx.captured_queries if "INSERT" in q["sql"]]
    assert len(writes) == (1 if connection.vendor == "postgresql" else 3)
    stored = Response.objects.get()
    assert (response.pk, response.evidence, stored.evidence) == (stored.pk, True, True)
    after = bkt.update_score(P0, 1.0, bkt.DEFAULT_PARAMS)
    rows = SkillMastery.objects.filter(learner=learner).order_by("skill")
    assert [(r.skill, r.responses) for r in rows] == [(s, 1) for s in skills]
    assert [r.p_mastery for r in rows] == [pytest.approx(after)] * len(skills)
    events = MasteryEvent.objects.filter(learner=learner).order_by("skill")
    assert [(e.skill, e.p_before, e.response_id) for e in events] == [
        (s, P0, stored.pk) for s in skills
    ]


def test_a_row_stepped_since_it_was_read_is_stepped_again_from_what_is_stored(learner):
    """The caller read no rows (`read={}`), but another attempt of the learner has
    stepped them since: the guard refuses the stale step and the row is stepped from
    its stored value, its event logged once, from there."""
    first_attempt, first_question = _question(learner)
    part = first_question.answers[0]
    _submit(first_attempt, first_question, wrong_text(part), "other-tab")
    stored = {r.skill: r.p_mastery for r in SkillMastery.objects.filter(learner=learner)}
    attempt, question = _question(learner)
    with transaction.atomic():
        response = first_try_store(
            learner_id=learner.pk,
            question=question,
            values=_values(attempt, question, part["name"], "this-tab", correct=True),
            read={},
        )
    for row in SkillMastery.objects.filter(learner=learner):
        assert row.responses == 2
        assert row.p_mastery == pytest.approx(
            bkt.update_score(stored[row.skill], 1.0, bkt.DEFAULT_PARAMS)
        )
    events = MasteryEvent.objects.filter(response_id=response.pk)
    assert sorted((e.skill, e.p_before) for e in events) == sorted(stored.items())


def test_a_used_key_writes_nothing_not_even_mastery(learner):
    """The key went with another question: the statement stores nothing at all (the
    skill rows and events wait on the response's INSERT), and the answer is refused as
    a mismatch, its first result kept."""
    quiz = QuizFactory(slots=[["weights-memory"], ["weights-memory"]])
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    q1, q2 = attempt.questions.order_by("order")
    part = q1.answers[0]
    _submit(attempt, q1, correct_text(part), "once")
    before = list(SkillMastery.objects.filter(learner=learner).values_list("skill", "responses"))
    events = MasteryEvent.objects.count()
    with pytest.raises(IdempotencyMismatch):
        _submit(attempt, q2, correct_text(part), "once")
    with transaction.atomic():
        assert (
            first_try_store(
                learner_id=learner.pk,
                question=q2,
                values=_values(attempt, q2, part["name"], "once", correct=True),
                # the rows as stored: only the response's conflict stops their step
                read={
                    r.skill: (r.p_mastery, r.responses)
                    for r in SkillMastery.objects.filter(learner=learner)
                },
            )
            is None
        )
    after = list(SkillMastery.objects.filter(learner=learner).values_list("skill", "responses"))
    assert after == before
    assert MasteryEvent.objects.count() == events
    assert Response.objects.count() == 1
