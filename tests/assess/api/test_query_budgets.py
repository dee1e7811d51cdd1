"""Query budgets: starting an attempt and submitting an answer cost the same number of
queries for a 2-question and a 10-question quiz."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.assess.helpers import answer, parts_of
from tests.factories import QuizFactory, UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.assess.urls")]

START_BUDGET = 12
# The policy reads the question's tries and reveals under the lock, so a submission
# is told at once whether its part is closed and whether the answer now shows.
SUBMIT_BUDGET = 18


def _start(api, n_slots: int) -> tuple[int, dict]:
    quiz = QuizFactory(slots=[["gb-gib"]] * n_slots)
    with CaptureQueriesContext(connection) as ctx:
        r = api.post(f"/api/quizzes/{quiz.pk}/attempts/")
    assert r.status_code == 201
    return len(ctx.captured_queries), r.json()


def _submit(api, body: dict, *, key=None, correct=True, index=-1) -> int:
    qid = body["questions"][index]["id"]
    part = parts_of(qid)[0]
    with CaptureQueriesContext(connection) as ctx:
        r = answer(api, body["id"], qid, part, key=key, correct=correct)
    assert r.status_code == 201
    return len(ctx.captured_queries)


@pytest.mark.parametrize("n_slots", [2, 10])
def test_start_and_submit_within_budget(api, n_slots, django_assert_max_num_queries):
    quiz = QuizFactory(slots=[["gb-gib", "weights-memory"]] * n_slots)
    with django_assert_max_num_queries(START_BUDGET):
        body = api.post(f"/api/quizzes/{quiz.pk}/attempts/").json()
    assert len(body["questions"]) == n_slots
    qid = body["questions"][-1]["id"]
    with django_assert_max_num_queries(SUBMIT_BUDGET):
        assert answer(api, body["id"], qid, parts_of(qid)[0]).status_code == 201


def test_query_counts_do_not_grow_with_questions(client_for):
    # One learner per quiz, so each first answer creates its skill rows alike.
    counts = {}
    for n_slots in (2, 10):
        api = client_for(UserFactory())
        start, body = _start(api, n_slots)
        # The second answer goes to another question: the first one's part is solved.
        first, second = _submit(api, body), _submit(api, body, correct=False, index=0)
        counts[n_slots] = (start, first, second)
    print("queries (start, first answer, later answer):", counts)
    assert counts[2] == counts[10]
