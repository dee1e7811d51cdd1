"""The saves ceiling: a part of an exam (deferred feedback) keeps at most SAVES_CEILING
saves. Each save's statement reads the question's saves for its answer's body, so 20,000
saves of one part made every request on the attempt take 0.4-0.7 s; past the ceiling the
part takes no more, and the last save counts."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from api_common.service_errors import Conflict
from assess.models import Response
from assess.policy import SAVES_MESSAGE, Closed, part_policy
from assess.scoring import SAVES_CEILING, Rules
from assess.services.attempts import attempt_start
from assess.services.responses import response_submit
from tests.factories import QuizFactory

pytestmark = pytest.mark.django_db


def _save(attempt, question, part, k: int):
    text = f"{part['value'] * (2 + k)!r} {part['unit']}".strip()
    return response_submit(
        attempt=attempt, question=question, part=part["name"], text=text, idempotency_key=f"s{k}"
    )


@pytest.fixture
def sitting(learner):
    quiz = QuizFactory(mode="exam", slots=[["weights-memory"]])
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    question = attempt.questions.get()
    return attempt, question, question.answers[0]


def test_an_exam_part_keeps_its_ceiling_of_saves_and_the_last_one_counts(sitting):
    attempt, question, part = sitting
    counts = {}
    for k in range(SAVES_CEILING):
        with CaptureQueriesContext(connection) as ctx:
            _save(attempt, question, part, k)
        counts[k + 1] = len(ctx.captured_queries)
    assert counts[2] == counts[SAVES_CEILING]  # the statements do not grow with the saves
    with pytest.raises(Conflict) as refused:
        _save(attempt, question, part, SAVES_CEILING)
    assert str(refused.value) == SAVES_MESSAGE
    stored = Response.objects.filter(question=question, part=part["name"]).order_by("id")
    assert stored.count() == SAVES_CEILING
    assert stored.last().idempotency_key == f"s{SAVES_CEILING - 1}"  # the last save stands


def test_the_policy_closes_a_deferred_part_at_the_ceiling():
    rules = Rules(deferred=True)
    saves = [type("Save", (), {"correct": False, "score": 0.0})() for _ in range(SAVES_CEILING)]
    kw = {"name": "p", "revealed": False, "rules": rules, "over": False, "grades": False}
    below = part_policy(tries=saves[:-1], learner=True, **kw)
    at = part_policy(tries=saves, learner=True, **kw)
    assert (below.closed, below.accepts, below.closed_message) == (None, True, "")
    assert (at.closed, at.accepts, at.closed_message) == (Closed.EXHAUSTED, False, SAVES_MESSAGE)
    assert (at.show_grades, at.show_answer) == (False, False)  # still hidden until release
