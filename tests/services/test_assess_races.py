"""Races on one attempt, on real PostgreSQL: row locks and the unique constraint decide.

Each thread gets its own database connection (Django opens one per thread) and closes it
at the end; transactional_db lets the threads see the committed setup.
"""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from assess.errors import Conflict
from assess.models import Attempt, MasteryEvent, Response, SkillMastery
from assess.services.attempts import attempt_finish, attempt_start
from assess.services.responses import response_submit
from tests.assess.helpers import correct_text
from tests.factories import QuizFactory, UserFactory


def run_together(n: int, fn) -> list:
    """Run fn(i) in n threads released at once; returns each result or exception."""
    barrier = threading.Barrier(n)
    results: list = [None] * n

    def worker(i: int) -> None:
        try:
            barrier.wait(timeout=10)
            results[i] = fn(i)
        except Exception as exc:  # noqa: BLE001 - the test inspects it
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    return results


@pytest.fixture
def started(services_ready, transactional_db):
    learner = UserFactory(username="racer")
    attempt, _ = attempt_start(quiz=QuizFactory(slots=[["gb-gib"]]), learner=learner)
    question = attempt.questions.get()
    return attempt, question


def test_same_idempotency_key_concurrently_stores_one_response(started):
    attempt, question = started
    part = question.answers[0]

    def submit(i):
        fresh = Attempt.objects.select_related("quiz").get(pk=attempt.pk)
        return response_submit(
            attempt=fresh,
            question=question,
            part=part["name"],
            text=correct_text(part),
            idempotency_key="same-key",
        )

    results = run_together(4, submit)
    assert not [r for r in results if isinstance(r, Exception)], results
    assert len({r.response.pk for r in results}) == 1
    assert sorted(r.replayed for r in results) == [False, True, True, True]
    assert Response.objects.filter(attempt=attempt).count() == 1
    # Mastery moved once, not four times.
    assert SkillMastery.objects.get(learner=attempt.learner).responses == 1
    assert MasteryEvent.objects.count() == 1


def test_concurrent_finishes_one_wins(started):
    attempt, _ = started

    def finish(i):
        return attempt_finish(attempt=Attempt.objects.get(pk=attempt.pk))

    results = run_together(2, finish)
    wins = [r for r in results if isinstance(r, Attempt)]
    conflicts = [r for r in results if isinstance(r, Conflict)]
    assert len(wins) == 1 and len(conflicts) == 1, results
    assert Attempt.objects.get(pk=attempt.pk).status == Attempt.Status.FINISHED


def test_finish_racing_a_submission_never_loses_a_counted_answer(started):
    """Either the answer is stored before the finish and counts, or it is refused."""
    attempt, question = started
    part = question.answers[0]

    def act(i):
        fresh = Attempt.objects.select_related("quiz").get(pk=attempt.pk)
        if i == 0:
            return attempt_finish(attempt=fresh)
        return response_submit(
            attempt=fresh,
            question=question,
            part=part["name"],
            text=correct_text(part),
            idempotency_key="k",
        )

    finished, submitted = run_together(2, act)
    assert isinstance(finished, Attempt)
    stored = Response.objects.filter(attempt=attempt).count()
    final = Attempt.objects.get(pk=attempt.pk)
    if isinstance(submitted, Conflict):
        assert stored == 0 and final.score == 0.0
    else:
        assert stored == 1 and final.score == 1.0


def test_concurrent_starts_respect_attempts_allowed(services_ready, transactional_db):
    learner = UserFactory(username="starter")
    quiz = QuizFactory(attempts_allowed=1, slots=[["gb-gib"]])

    def start(i):
        return attempt_start(quiz=quiz, learner=learner)

    results = run_together(3, start)
    assert Attempt.objects.filter(quiz=quiz, learner=learner).count() == 1
    for r in results:
        # Resumed, or refused; never a second attempt.
        assert isinstance(r, Conflict) or r[0].number == 1, r
