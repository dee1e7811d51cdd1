"""Query budgets: starting an attempt, submitting an answer, reading the attempt,
revealing a part and finishing cost the same number of queries for a 2-question and a
10-question quiz."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import SignUp
from assess.models import Extension, Quiz, Response
from assess.scoring import TRIES_CEILING
from tests.assess.helpers import answer, parts_of
from tests.factories import QuizFactory, UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.assess.urls")]

# Start: the quiz's gate (with, in the same statement, whether the learner's email is
# confirmed and their extension on the quiz: selectors.quiz_get_for_start), the
# transaction, the learner's attempts on the quiz read and locked in one statement, the
# attempt's INSERT (ON CONFLICT DO NOTHING: no savepoint; on PostgreSQL the same
# statement takes the key-share lock on the quiz before its slots are read:
# selectors.locked.attempt_insert_sharing_quiz, a racing edit is seen or waits), the quiz
# with its slots, and the questions' INSERT (whose RETURNING gives the ids the response
# shows: they are not read again). (Was 12, then 8, or 9 on PostgreSQL, with one more
# for a timed quiz that closes and one for an exam's confirmation.)
START_BUDGET = 7
# Answer: the write gate (question, slot, attempt and quiz in one read), the
# transaction (BEGIN, COMMIT), the attempt's lock, one read of the question's state,
# tries and skill rows, and the INSERT (which decides replays); a first try adds the
# skill rows' upsert and their events, in the INSERT's statement on PostgreSQL
# (services.first_tries), two statements of their own on SQLite: 6 on PostgreSQL, 8 on
# SQLite, whether or not the skill rows existed (was 14, then 8 on both).
SUBMIT_BUDGET = 6 + 2 * (connection.vendor != "postgresql")
# An exam's answer: the write gate and one statement that locks the attempt if it takes
# answers, inserts and (on PostgreSQL) reads the question's saves for the result
# (services.held_answers; no transaction around it); SQLite reads the saves apart (was 6).
EXAM_ANSWER_BUDGET = 2 + (connection.vendor != "postgresql")


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
    part = parts_of(qid)[0]
    with django_assert_max_num_queries(SUBMIT_BUDGET):
        assert answer(api, body["id"], qid, part).status_code == 201


@pytest.mark.parametrize("n_slots", [2, 10])
def test_an_exam_answer_within_budget(api, n_slots):
    quiz = QuizFactory(mode="exam", slots=[["gb-gib", "weights-memory"]] * n_slots)
    body = api.post(f"/api/quizzes/{quiz.pk}/attempts/").json()
    # the last question saved again, under a new key
    counts = [_submit(api, body, index=i, key=f"k{n}") for n, i in enumerate((0, -1, -1))]
    assert counts == [EXAM_ANSWER_BUDGET] * 3


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


# GET attempt: the attempt, its questions, responses and reveals. Reveal: the gates,
# the lock, the reveal and the question's tries read under it, the question's review.
# Finish: the write gate, the lock, the rows scored (the review of the answer reuses
# them), the close with the release's stamp in one UPDATE, and (exams) the held answers
# applied to mastery: the skill rows read and locked by one upsert, then written, the
# answers marked and the events logged, in one statement on PostgreSQL
# (api_common.rows.execute_together), three on SQLite: 8 for practice, 10 for an exam on
# PostgreSQL, 12 on SQLite (were 14 and 22, then 9 and 15, then 8 and 12).
REVIEW_BUDGET = 4
REVEAL_BUDGET = 12
FINISH_BUDGET = {"practice": 8, "exam": 10 + 2 * (connection.vendor != "postgresql")}


def _count(fn) -> tuple[int, object]:
    with CaptureQueriesContext(connection) as ctx:
        r = fn()
    assert r.status_code in (200, 201), r.content
    return len(ctx.captured_queries), r


def _walk(api, quiz) -> tuple[int, int, int]:
    """(GET attempt, reveal, finish) query counts on a quiz whose questions all have a
    try but the last; GET attempt with every solution rendered (after the finish) too."""
    body = api.post(f"/api/quizzes/{quiz.pk}/attempts/").json()
    aid = body["id"]
    for i, q in enumerate(body["questions"][:-1]):
        part = parts_of(q["id"])[0]
        assert answer(api, aid, q["id"], part, correct=i % 2 == 0).status_code == 201
    last = body["questions"][-1]["id"]
    review, _ = _count(lambda: api.get(f"/api/attempts/{aid}/"))
    if quiz.feedback == "immediately":
        reveal, r = _count(
            lambda: api.post(
                f"/api/attempts/{aid}/questions/{last}/reveal/",
                {"part": parts_of(last)[0]["name"]},
                format="json",
            )
        )
        assert r.json()["parts"][0]["answer"] is not None
    else:
        reveal = 0
    finish, _ = _count(lambda: api.post(f"/api/attempts/{aid}/finish/"))
    after, _ = _count(lambda: api.get(f"/api/attempts/{aid}/"))
    assert after == review
    return review, reveal, finish


@pytest.mark.parametrize("mode", ["practice", "exam"])
def test_review_reveal_and_finish_do_not_grow_with_questions(client_for, mode):
    counts = {}
    for n_slots in (2, 10):
        api = client_for(UserFactory())
        quiz = QuizFactory(mode=mode, slots=[["gb-gib", "weights-memory"]] * n_slots)
        counts[n_slots] = _walk(api, quiz)
    print(f"{mode} queries (GET attempt, reveal, finish):", counts)
    assert counts[2] == counts[10]
    review, reveal, finish = counts[10]
    assert review <= REVIEW_BUDGET
    assert reveal <= REVEAL_BUDGET
    assert finish <= FINISH_BUDGET[mode]


def test_a_learners_extension_costs_no_read_of_its_own_on_start(api, learner):
    """A timed quiz that closes reads the learner's extension with the quiz's gate: the
    start costs what a quiz with neither costs, and the extension is applied."""
    plain = _start(api, 2)[0]
    quiz = QuizFactory(
        slots=[["gb-gib"]] * 2,
        time_limit=timedelta(minutes=30),
        closes_at=timezone.now() + timedelta(hours=1),
    )
    Extension.objects.create(quiz=quiz, learner=learner, extra_time=timedelta(minutes=10))
    with CaptureQueriesContext(connection) as ctx:
        r = api.post(f"/api/quizzes/{quiz.pk}/attempts/")
    assert r.status_code == 201
    assert len(ctx.captured_queries) == plain <= START_BUDGET
    started = timezone.datetime.fromisoformat(r.json()["started_at"])
    deadline = timezone.datetime.fromisoformat(r.json()["deadline"])
    assert deadline - started == timedelta(minutes=40)


def test_an_exams_start_asks_for_the_confirmation_in_its_gate(api):
    """An exam asks whether the learner's email is confirmed (an unconfirmed sign-up
    starts none): in the gate's statement, not in one of its own."""
    exam = QuizFactory(slots=[["gb-gib"]] * 2, mode=Quiz.Mode.EXAM)
    with CaptureQueriesContext(connection) as ctx:
        assert api.post(f"/api/quizzes/{exam.pk}/attempts/").status_code == 201
    signup = connection.ops.quote_name(SignUp._meta.db_table)
    (asking,) = [q["sql"] for q in ctx.captured_queries if signup in q["sql"]]
    assert connection.ops.quote_name(Quiz._meta.db_table) in asking


def test_an_answer_at_the_tries_ceiling_lists_every_try_for_the_queries_of_a_second(api):
    """The answer's body lists the part's earlier tries from the columns its locked read
    loads (selectors.attempt_rows.TRY_FIELDS): a field the body wrote but the read left
    out would be loaded a query a try, so the last try would cost 29 more than the
    second; and each try's fields are the ones stored."""
    quiz = QuizFactory(mode="practice", slots=[["weights-memory"]])
    body = api.post(f"/api/quizzes/{quiz.pk}/attempts/").json()
    qid = body["questions"][0]["id"]
    part = parts_of(qid)[0]
    counts = []
    for k in range(TRIES_CEILING):
        with CaptureQueriesContext(connection) as ctx:
            r = answer(api, body["id"], qid, part, correct=False, key=f"w{k}")
        assert r.status_code == 201, r.content
        counts.append(len(ctx.captured_queries))
    assert counts[1] == counts[-1] == SUBMIT_BUDGET - 2 * (connection.vendor != "postgresql")
    listed = r.json()["question_state"]["responses"]
    stored = Response.objects.filter(question_id=qid).order_by("created_at", "id")
    assert [t["id"] for t in listed] == [s.pk for s in stored]
    for t, s in zip(listed, stored, strict=True):
        assert (t["question"], t["part"], t["answer"], t["valid"]) == (qid, s.part, s.raw, True)
        assert (t["correct"], t["score"], t["feedback"]) == (False, s.score, s.feedback)
        assert t["misconception"] == (s.misconception or None)
        assert t["created_at"] == s.created_at.isoformat().replace("+00:00", "Z")
