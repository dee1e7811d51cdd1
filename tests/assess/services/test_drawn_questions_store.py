"""A start's pooled questions in one statement (drawn_variants.drawn_questions_store,
PostgreSQL) against the path it replaces there and SQLite keeps: the pool claimed
(drawn_claim), each question built from its variant (question_from_drawn) and the
questions inserted (insert_objects). On the same pool both must store the same
questions, leave the same variants waiting and touch the same pool rows; a slot whose
variant is out of date (its template left the slot, or changed since the draw) stores
nothing, and the caller draws it live."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from api_common.rows import insert_objects
from assess.models import Attempt, DrawnVariant, Question, Quiz, Slot
from assess.services.attempts import attempt_start
from assess.services.drawn_variants import (
    drawn_claim,
    drawn_questions_store,
    question_from_drawn,
    variants_predraw,
)
from tests import row_locks
from tests.factories import QuizFactory, UserFactory
from tests.sql_twins import fields, run

pytestmark = pytest.mark.django_db

SLOTS = [["weights-memory", "kv-cache-total"], ["gb-gib"], ["gb-gib"], ["kv-cache-total"]]
# Fields a question gets at its insert that the two paths need not share: its id, and
# the moment each built it.
SKIP = ("id", "created_at")


@pytest.fixture(autouse=True)
def _postgresql_only():
    if connection.vendor != "postgresql":
        pytest.skip("a DELETE in a WITH: PostgreSQL only (SQLite claims, builds, inserts)")


def _pool(mode=Quiz.Mode.EXAM, waiting: int = 2) -> tuple[Quiz, Attempt, list[Slot]]:
    quiz = QuizFactory(mode=mode, slots=SLOTS)
    variants_predraw(quiz=quiz, wanted=waiting)
    attempt = Attempt.objects.create(quiz=quiz, learner=UserFactory(), number=1)
    return quiz, attempt, list(quiz.slots.order_by("order"))


def _step_by_step(attempt: Attempt, slots: list[Slot]) -> dict[int, Question]:
    drawn = drawn_claim(quiz_id=attempt.quiz_id)
    built = {}
    for order, slot in enumerate(slots, start=1):
        question = question_from_drawn(
            attempt=attempt, slot=slot, order=order, drawn=drawn.get(slot.pk)
        )
        if question is not None:
            built[slot.pk] = question
    insert_objects(list(built.values()), key="order")
    return built


def _state(attempt: Attempt):
    """The attempt's stored questions, and the pool's waiting variants."""
    stored = [fields(q, SKIP) for q in Question.objects.filter(attempt=attempt).order_by("order")]
    return stored, sorted(DrawnVariant.objects.values_list("pk", flat=True))


def _compare(attempt: Attempt, slots: list[Slot]):
    pks = list(DrawnVariant.objects.values_list("pk", flat=True))
    attempt.quiz = Quiz.objects.get(pk=attempt.quiz_id)
    got, got_state, got_touched = run(
        lambda: drawn_questions_store(attempt=attempt, slots=slots),
        lambda: _state(attempt),
        model=DrawnVariant,
        pks=pks,
    )
    want, want_state, want_touched = run(
        lambda: _step_by_step(attempt, slots), lambda: _state(attempt), model=DrawnVariant, pks=pks
    )
    assert sorted(got) == sorted(want)
    for slot_id, question in got.items():  # what the caller holds is what was stored
        assert fields(question, SKIP) == fields(want[slot_id], SKIP)
        assert question.pk is not None and question.slot.pk == slot_id
        assert question.attempt is attempt
    assert got_state == want_state
    assert got_touched == want_touched
    return got


@pytest.mark.parametrize("mode", [Quiz.Mode.EXAM, Quiz.Mode.HOMEWORK])
def test_a_full_pool_stores_what_the_step_by_step_path_stores(mode):
    quiz, attempt, slots = _pool(mode)
    got = _compare(attempt, slots)
    assert len(got) == len(slots)
    hints = {q.hint_total is None for q in got.values()}
    assert hints == ({True} if mode == Quiz.Mode.EXAM else {False})  # homework counts them


def test_a_dry_slot_and_out_of_date_variants_store_nothing_for_their_slots():
    quiz, attempt, slots = _pool()
    DrawnVariant.objects.filter(slot=slots[1]).delete()  # ran dry
    DrawnVariant.objects.filter(slot=slots[2], number=1).update(template_version=999)
    DrawnVariant.objects.filter(slot=slots[3], number=1).update(template_slug="gb-gib")
    got = _compare(attempt, slots)
    assert sorted(got) == [slots[0].pk]


def test_a_slot_listing_its_template_twice_stores_one_question():
    """The model's validator refuses a template listed twice in a slot, but a bulk
    write never runs it: the slot still gets one question, not two of one variant."""
    quiz, attempt, slots = _pool()
    Slot.objects.filter(pk=slots[1].pk).update(templates=["gb-gib", "gb-gib"])
    slots = list(quiz.slots.order_by("order"))
    got = _compare(attempt, slots)
    assert len(got) == len(slots)


def test_an_empty_pool_stores_nothing():
    quiz, attempt, slots = _pool(waiting=0)
    assert _compare(attempt, slots) == {}


def test_a_pooled_start_stores_its_questions_in_the_statement_that_claims_them():
    """The start's one write of questions: no INSERT of values built in Python, and
    nothing left to draw live; the learner's questions are the pool's first variants."""
    quiz = QuizFactory(mode=Quiz.Mode.EXAM, slots=SLOTS)
    variants_predraw(quiz=quiz, wanted=1)
    first = {v.slot_id: v.seed for v in DrawnVariant.objects.all()}
    with CaptureQueriesContext(connection) as ctx:
        attempt, created = attempt_start(quiz=quiz, learner=UserFactory())
    assert created
    touching = [q["sql"] for q in ctx.captured_queries if '"assess_question"' in q["sql"]]
    assert len(touching) == 1 and touching[0].startswith("WITH d AS (DELETE")
    held = attempt.started_questions
    assert [q.order for q in held] == [1, 2, 3, 4]
    assert {q.slot_id: q.seed for q in held} == first
    assert [fields(q) for q in held] == [
        fields(q) for q in Question.objects.filter(attempt=attempt).order_by("order")
    ]
    assert not DrawnVariant.objects.exists()


@pytest.mark.django_db(transaction=True)  # the pool committed: the other connection sees it
def test_a_start_stores_the_next_variant_when_another_start_holds_the_first():
    """Two starts of one burst never queue on one waiting row (SKIP LOCKED): the start
    takes the slot's next variant while another start's transaction holds the first."""
    quiz = QuizFactory(mode=Quiz.Mode.EXAM, slots=[["gb-gib"]])
    variants_predraw(quiz=quiz, wanted=2)
    first = DrawnVariant.objects.get(number=1)
    second = DrawnVariant.objects.get(number=2)
    attempt = Attempt.objects.create(quiz=quiz, learner=UserFactory(), number=1)
    with (
        row_locks.row_held(DrawnVariant, first.pk),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("SET LOCAL lock_timeout = '5s'")  # a start that waits fails
        stored = drawn_questions_store(attempt=attempt, slots=list(quiz.slots.all()))
    assert [q.seed for q in stored.values()] == [second.seed]
    assert list(DrawnVariant.objects.values_list("number", flat=True)) == [1]
