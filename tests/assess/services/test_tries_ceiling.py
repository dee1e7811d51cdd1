"""The tries ceiling (issue 43, item 5): a part takes at most TRIES_CEILING tries under any
quiz with immediate feedback, so an answer's read of its question's tries, and so its
cost, stays bounded however long a learner practises one variant."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from api_common.service_errors import Conflict
from assess.models import Response
from assess.policy import CEILING_MESSAGE, Closed, part_policy
from assess.scoring import TRIES_CEILING, Rules
from assess.services.attempts import attempt_start
from assess.services.questions import question_new_variant
from assess.services.responses import response_submit
from tests.assess.helpers import correct_text, wrong_text
from tests.factories import QuizFactory

pytestmark = pytest.mark.django_db


def _answer(attempt, question, part, text, key):
    return response_submit(
        attempt=attempt, question=question, part=part["name"], text=text, idempotency_key=key
    )


def _wrong(part, k: int) -> str:
    """A different wrong answer each time (a readable value no slip explains)."""
    if part["kind"] == "choice":
        return wrong_text(part)
    return f"{part['value'] * (37 + k)!r} {part['unit']}".strip()


@pytest.fixture
def practising(learner):
    quiz = QuizFactory(mode="practice", slots=[["weights-memory"]])
    assert quiz.tries_per_part is None  # practice sets no limit of its own
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    question = attempt.questions.get()
    return attempt, question, question.answers[0]


def test_a_practice_part_closes_at_the_ceiling_and_a_new_variant_opens(practising):
    attempt, question, part = practising
    for k in range(TRIES_CEILING):
        _answer(attempt, question, part, _wrong(part, k), f"w{k}")
    with pytest.raises(Conflict) as refused:
        _answer(attempt, question, part, correct_text(part), "one-more")
    assert str(TRIES_CEILING) in str(refused.value) and "another variant" in str(refused.value)
    assert str(refused.value) == CEILING_MESSAGE
    assert Response.objects.filter(question=question).count() == TRIES_CEILING  # none lost
    fresh = question_new_variant(attempt=attempt, question=question)
    result = _answer(attempt, fresh, fresh.answers[0], correct_text(fresh.answers[0]), "fresh")
    assert result.response.correct


def test_the_policy_closes_unlimited_parts_at_the_ceiling_and_keeps_null_tries_left():
    rules = Rules(deferred=False, tries=None)
    tries = [type("Try", (), {"correct": False, "score": 0.0})() for _ in range(TRIES_CEILING)]
    below = part_policy(name="p", tries=tries[:-1], revealed=False, rules=rules, over=False,
                        grades=True, learner=True)  # fmt: skip
    at = part_policy(name="p", tries=tries, revealed=False, rules=rules, over=False,
                     grades=True, learner=True)  # fmt: skip
    assert (below.closed, below.accepts, below.tries_left) == (None, True, None)
    assert (at.closed, at.accepts, at.show_answer) == (Closed.EXHAUSTED, False, True)
    # A quiz limit stored above the ceiling (before it existed) is held to it.
    old = part_policy(name="p", tries=tries, revealed=False, rules=Rules(deferred=False, tries=100),
                      over=False, grades=True, learner=True)  # fmt: skip
    assert (old.closed, old.tries_left) == (Closed.EXHAUSTED, 0)


def test_homework_exhausting_its_own_limit_keeps_its_own_message(learner):
    quiz = QuizFactory(mode="homework", slots=[["weights-memory"]], tries_per_part=2)
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    question = attempt.questions.get()
    part = question.answers[0]
    for k in range(2):
        _answer(attempt, question, part, _wrong(part, k), f"w{k}")
    with pytest.raises(Conflict, match="every try allowed"):
        _answer(attempt, question, part, correct_text(part), "third")


def test_a_try_at_the_ceiling_costs_the_queries_of_a_second_try(practising):
    """The answer's statements do not grow with the part's tries: the second try and the
    last one the ceiling allows run the same statements."""
    attempt, question, part = practising
    counts = {}
    for k in range(TRIES_CEILING):
        with CaptureQueriesContext(connection) as ctx:
            _answer(attempt, question, part, _wrong(part, k), f"w{k}")
        counts[k + 1] = len(ctx.captured_queries)
    assert counts[2] == counts[TRIES_CEILING] == counts[15]
    # the first try was the mastery evidence (its statements differ by engine: PostgreSQL
    # writes the skill rows and events in one), the later ones not
    evidence = list(Response.objects.filter(question=question).values_list("evidence", flat=True))
    assert evidence == [True] + [False] * (TRIES_CEILING - 1)
