"""Races on one attempt, on real PostgreSQL: row locks and the unique constraint decide.

Each thread gets its own database connection (Django opens one per thread) and closes it
at the end; transactional_db lets the threads see the committed setup.
"""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.utils import timezone
from rest_framework.test import APIClient

from api_common.service_errors import Conflict
from assess.models import (
    Attempt,
    Enrolment,
    MasteryEvent,
    Question,
    Quiz,
    Response,
    Reveal,
    SkillMastery,
)
from assess.services.attempts import attempt_finish, attempt_start
from assess.services.mastery import mastery_release_due
from assess.services.questions import practice_question_add
from assess.services.responses import response_submit
from assess.services.reveals import part_reveal
from tests.assess.helpers import correct_text, wrong_text
from tests.factories import LessonFactory, QuizFactory, UserFactory


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


def answer_fresh(attempt, question, part: dict, text: str, key: str):
    """The answer as a request makes it: the attempt read again in this thread (as the
    writer gate reads it), then response_submit."""
    fresh = Attempt.objects.select_related("quiz").get(pk=attempt.pk)
    return response_submit(
        attempt=fresh, question=question, part=part["name"], text=text, idempotency_key=key
    )


@pytest.fixture(params=["practice", "exam"])
def started(request, services_ready, transactional_db):
    """A practice attempt (answers take the general path: a transaction, the lock, a
    locked read) or an exam's (one guarded statement: services.held_answers)."""
    learner = UserFactory(username="racer")
    quiz = QuizFactory(mode=request.param, slots=[["gb-gib"]])
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    question = attempt.questions.get()
    return attempt, question


def test_same_idempotency_key_concurrently_stores_one_response(started):
    attempt, question = started
    part = question.answers[0]

    def submit(i):
        return answer_fresh(attempt, question, part, correct_text(part), "same-key")

    results = run_together(4, submit)
    assert not [r for r in results if isinstance(r, Exception)], results
    assert len({r.response.pk for r in results}) == 1
    assert sorted(r.replayed for r in results) == [False, True, True, True]
    assert Response.objects.filter(attempt=attempt).count() == 1
    if attempt.quiz.feedback_deferred:  # an exam's answer waits for the release
        assert not SkillMastery.objects.exists() and not MasteryEvent.objects.exists()
        return
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
        if i == 0:
            return attempt_finish(attempt=Attempt.objects.select_related("quiz").get(pk=attempt.pk))
        return answer_fresh(attempt, question, part, correct_text(part), "k")

    finished, submitted = run_together(2, act)
    assert isinstance(finished, Attempt)
    stored = Response.objects.filter(attempt=attempt).count()
    final = Attempt.objects.get(pk=attempt.pk)
    if isinstance(submitted, Conflict):
        assert stored == 0 and final.score == 0.0
    else:
        assert stored == 1 and final.score == 1.0


def _one_open_attempt(results, quiz, learner) -> Attempt:
    """Every racing start returned the same open attempt: one created it, the others
    resumed it; its questions were drawn once."""
    assert not [r for r in results if isinstance(r, Exception)], results
    [attempt] = Attempt.objects.filter(quiz=quiz, learner=learner)
    assert attempt.status == Attempt.Status.OPEN and attempt.number == 1
    assert {a.pk for a, _ in results} == {attempt.pk}
    assert sorted(created for _, created in results) == [False] * (len(results) - 1) + [True]
    assert attempt.questions.count() == quiz.slots.count()
    return attempt


@pytest.mark.parametrize("attempts_allowed", [None, 1])
def test_concurrent_starts_open_one_attempt(services_ready, transactional_db, attempts_allowed):
    learner = UserFactory(username="starter")
    quiz = QuizFactory(attempts_allowed=attempts_allowed, slots=[["gb-gib"], ["gb-gib"]])

    def start(i):
        return attempt_start(quiz=Quiz.objects.get(pk=quiz.pk), learner=learner)

    _one_open_attempt(run_together(4, start), quiz, learner)


@pytest.mark.urls("tests.assess.urls")
def test_concurrent_starts_through_the_api_one_created_one_resumed(
    services_ready, transactional_db
):
    learner = UserFactory(username="starter")
    quiz = QuizFactory(mode=Quiz.Mode.EXAM, slots=[["gb-gib"], ["weights-memory"]])

    def start(i):
        client = APIClient()
        client.force_authenticate(learner)
        return client.post(f"/api/quizzes/{quiz.pk}/attempts/")

    results = run_together(2, start)
    assert sorted(r.status_code for r in results) == [200, 201], results
    first, second = (r.json() for r in results)
    assert first["id"] == second["id"]
    assert first["questions"] == second["questions"]
    assert Attempt.objects.filter(quiz=quiz, learner=learner).count() == 1


@pytest.mark.parametrize("first_practice", [True, False])
def test_concurrent_practice_starts_share_one_attempt(
    services_ready, transactional_db, first_practice
):
    """Racing "practise this lesson" requests of one learner: one attempt, one enrolment,
    and every request's question stored with its own number, whether the lesson's
    practice quiz is created by the race or existed already (then the racers meet on
    the attempt's insert)."""
    learner = UserFactory(username="practiser")
    lesson = LessonFactory(templates=["gb-gib", "weights-memory"])
    if not first_practice:
        practice_question_add(learner=UserFactory(username="earlier"), lesson=lesson)
    n = 4

    def practise(i):
        return practice_question_add(learner=learner, lesson=lesson)

    results = run_together(n, practise)
    assert not [r for r in results if isinstance(r, Exception)], results
    [attempt] = Attempt.objects.filter(learner=learner)
    assert (
        attempt.number == 1
        and attempt.quiz.adaptive
        and attempt.quiz.practice_lesson_id == lesson.pk
    )
    assert {r.attempt.pk for r in results} == {attempt.pk}
    assert Quiz.objects.filter(practice_lesson=lesson).count() == 1
    # Each request added its own question: none lost, none numbered twice.
    questions = list(Question.objects.filter(attempt=attempt))
    assert sorted(q.pk for q in questions) == sorted(r.question.pk for r in results)
    assert sorted(q.order for q in questions) == list(range(1, n + 1))
    assert len({q.variant_number for q in questions}) == n
    [enrolment] = Enrolment.objects.filter(user=learner)
    assert enrolment.course_id == lesson.module.course_id
    assert enrolment.source == Enrolment.Source.PRACTICE


def _started(quiz: Quiz, username: str) -> tuple[Attempt, Question, dict]:
    attempt, _ = attempt_start(quiz=quiz, learner=UserFactory(username=username))
    question = attempt.questions.get()
    return attempt, question, question.answers[0]


def _fresh(attempt: Attempt) -> Attempt:
    return Attempt.objects.select_related("quiz").get(pk=attempt.pk)


def test_concurrent_tries_never_pass_the_limit(services_ready, transactional_db):
    quiz = QuizFactory(mode=Quiz.Mode.HOMEWORK, tries_per_part=3, slots=[["gb-gib"]])
    attempt, question, part = _started(quiz, "trier")

    def try_(i):
        text = f"{part['value'] * (37 + i)!r} {part['unit']}"  # wrong, and distinct
        return response_submit(
            attempt=_fresh(attempt),
            question=question,
            part=part["name"],
            text=text,
            idempotency_key=f"try-{i}",
        )

    results = run_together(8, try_)
    stored = [r for r in results if not isinstance(r, Exception)]
    refused = [r for r in results if isinstance(r, Conflict)]
    assert (len(stored), len(refused)) == (3, 5), results
    assert Response.objects.filter(attempt=attempt).count() == 3
    # Mastery learned from the first try only, once.
    assert Response.objects.filter(attempt=attempt, evidence=True).count() == 1
    assert SkillMastery.objects.get(learner=attempt.learner).responses == 1
    assert MasteryEvent.objects.filter(learner=attempt.learner).count() == 1


def test_concurrent_correct_answers_with_fresh_keys_store_one(services_ready, transactional_db):
    quiz = QuizFactory(mode=Quiz.Mode.PRACTICE, slots=[["weights-memory"]])
    attempt, question, part = _started(quiz, "solver")

    def solve(i):
        return response_submit(
            attempt=_fresh(attempt),
            question=question,
            part=part["name"],
            text=correct_text(part),
            idempotency_key=f"fresh-{i}",
        )

    results = run_together(8, solve)
    assert sum(not isinstance(r, Exception) for r in results) == 1, results
    assert sum(isinstance(r, Conflict) for r in results) == 7, results
    assert Response.objects.filter(attempt=attempt).count() == 1
    skills = SkillMastery.objects.filter(learner=attempt.learner)
    assert skills.count() == 2 and {s.responses for s in skills} == {1}  # two skills, once
    assert MasteryEvent.objects.filter(learner=attempt.learner).count() == 2


def test_a_reveal_racing_a_correct_try(services_ready, transactional_db):
    """Either the try lands first (solved: the reveal records nothing) or the reveal
    does (the try is refused): never both, never a try after a reveal."""
    quiz = QuizFactory(mode=Quiz.Mode.PRACTICE, slots=[["gb-gib"]])
    attempt, question, part = _started(quiz, "peeker")

    def act(i):
        if i == 0:
            return part_reveal(attempt=_fresh(attempt), question=question, part=part["name"])
        return response_submit(
            attempt=_fresh(attempt),
            question=question,
            part=part["name"],
            text=correct_text(part),
            idempotency_key="k",
        )

    revealed, submitted = run_together(2, act)
    assert not isinstance(revealed, Exception), revealed
    responses = Response.objects.filter(attempt=attempt).count()
    reveals = Reveal.objects.filter(question=question).count()
    if isinstance(submitted, Conflict):
        assert (revealed, responses, reveals) == (True, 0, 1)
    else:
        assert (revealed, responses, reveals) == (False, 1, 0), submitted


def test_concurrent_releases_apply_held_answers_once(services_ready, transactional_db):
    closes = timezone.now() + timedelta(hours=1)
    quiz = QuizFactory(
        mode=Quiz.Mode.EXAM,
        feedback=Quiz.Feedback.AFTER_CLOSE,
        closes_at=closes,
        slots=[["gb-gib"]],
    )
    attempts = []
    for i in range(3):
        attempt, question, part = _started(quiz, f"examinee{i}")
        for key, text in (("a", wrong_text(part)), ("b", correct_text(part))):
            response_submit(
                attempt=attempt,
                question=question,
                part=part["name"],
                text=text,
                idempotency_key=key,
            )
        attempt_finish(attempt=attempt)
        attempts.append(attempt)
    assert mastery_release_due() == 0  # not closed yet
    Quiz.objects.filter(pk=quiz.pk).update(closes_at=timezone.now() - timedelta(seconds=1))

    results = run_together(4, lambda i: mastery_release_due())
    assert not [r for r in results if isinstance(r, Exception)], results
    assert sum(results) == 3  # one counted answer per attempt, applied once in all
    assert MasteryEvent.objects.count() == 3
    assert Response.objects.filter(evidence=True).count() == 3
    assert not Response.objects.filter(evidence=True, correct=False).exists()
    assert set(SkillMastery.objects.values_list("responses", flat=True)) == {1}


def test_first_tries_in_two_attempts_of_one_learner_both_step_mastery(
    services_ready, transactional_db
):
    """Two tabs: the same learner answers first tries in two attempts at once, on
    templates sharing skills. Each attempt's lock serializes only its own writers, so
    the skill rows' upsert must not lose either step (its version guard re-reads a row
    that moved): every shared skill ends with two answers, two events, and the
    probability of two BKT steps in the order the events record."""
    from assess.mastery import bkt
    from assess.skills import template_skills

    learner = UserFactory(username="two-tabs")
    rounds = 6
    quizzes = [QuizFactory(slots=[["gb-gib"]] * rounds) for _ in range(2)]
    attempts = [attempt_start(quiz=q, learner=learner)[0] for q in quizzes]
    questions = [list(a.questions.order_by("order")) for a in attempts]
    for k in range(rounds):

        def submit(i, k=k):
            question = questions[i][k]
            part = question.answers[0]
            fresh = Attempt.objects.select_related("quiz").get(pk=attempts[i].pk)
            return response_submit(
                attempt=fresh,
                question=question,
                part=part["name"],
                text=correct_text(part),
                idempotency_key=f"tab-{i}-{k}",
            )

        results = run_together(2, submit)
        assert not [r for r in results if isinstance(r, Exception)], results
    for skill in template_skills("gb-gib"):
        row = SkillMastery.objects.get(learner=learner, skill=skill)
        events = list(MasteryEvent.objects.filter(learner=learner, skill=skill).order_by("id"))
        assert row.responses == len(events) == 2 * rounds
        p = bkt.DEFAULT_PARAMS.p_init
        for event in sorted(events, key=lambda e: e.p_before):
            # right answers only raise p: the chain of events is the order of the steps
            assert event.p_before == pytest.approx(p)
            p = event.p_after
        assert row.p_mastery == pytest.approx(p)


@pytest.mark.parametrize("outcome", ["finished", "extended"])
def test_an_exam_answer_waiting_on_the_lock_decides_on_the_row_as_committed(
    services_ready, transactional_db, outcome
):
    """An exam's answer behind a writer holding the attempt's row (its one statement,
    services.held_answers, skips the row and the general path queues on it) is judged
    on the row as that writer left it: refused when the writer finished the attempt,
    stored when it moved a passed deadline later."""
    learner = UserFactory(username="waiter")
    attempt, _ = attempt_start(
        quiz=QuizFactory(mode=Quiz.Mode.EXAM, slots=[["gb-gib"]]), learner=learner
    )
    question = attempt.questions.get()
    part = question.answers[0]
    if outcome == "extended":  # past its deadline until the writer moves it
        Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() - timedelta(minutes=1))
    holding, waited = threading.Event(), {}

    def act(i):
        if i == 0:
            with transaction.atomic():
                Attempt.objects.select_for_update().get(pk=attempt.pk)
                holding.set()
                time.sleep(0.5)  # the answer's statement starts and waits meanwhile
                if outcome == "finished":
                    Attempt.objects.filter(pk=attempt.pk).update(status=Attempt.Status.FINISHED)
                else:
                    later = timezone.now() + timedelta(minutes=10)
                    Attempt.objects.filter(pk=attempt.pk).update(deadline=later)
            return None
        holding.wait(timeout=10)
        started_at = time.monotonic()
        try:
            return answer_fresh(attempt, question, part, correct_text(part), "waits")
        finally:
            waited["s"] = time.monotonic() - started_at

    _, submitted = run_together(2, act)
    assert waited["s"] > 0.3  # it did wait on the row
    stored = Response.objects.filter(attempt=attempt).count()
    if outcome == "finished":
        assert isinstance(submitted, Conflict) and stored == 0
    else:
        assert not isinstance(submitted, Exception), submitted
        assert stored == 1 and not submitted.replayed


def test_an_exam_answer_behind_another_save_shows_it(services_ready, transactional_db):
    """An exam's one statement reads the question's saves as of its start, so it never
    waits on the attempt's row: behind a writer holding it (here another tab's save,
    not yet committed) it stores nothing and the general path queues on the lock, then
    reads the saves as committed. A statement that waited would answer without them."""
    learner = UserFactory(username="second-tab")
    attempt, _ = attempt_start(
        quiz=QuizFactory(mode=Quiz.Mode.EXAM, slots=[["weights-memory"]]), learner=learner
    )
    question = attempt.questions.get()
    first, second = question.answers[0], question.answers[-1]
    holding, other = threading.Event(), {}

    def act(i):
        if i == 0:
            with transaction.atomic():
                Attempt.objects.select_for_update().get(pk=attempt.pk)
                other["pk"] = Response.objects.create(
                    attempt=attempt,
                    question=question,
                    part=first["name"],
                    raw=wrong_text(first),
                    valid=True,
                    correct=False,
                    score=0.0,
                    idempotency_key="other-tab",
                ).pk
                holding.set()
                time.sleep(0.5)  # the answer below starts meanwhile
            return None
        holding.wait(timeout=10)
        return answer_fresh(attempt, question, second, correct_text(second), "this-tab")

    held, submitted = run_together(2, act)
    assert held is None and not isinstance(submitted, Exception), (held, submitted)
    assert [r.pk for r in submitted.responses] == [other["pk"], submitted.response.pk]
    assert Response.objects.filter(attempt=attempt).count() == 2
