"""The answer path's hand-written writes, each held to the same write through the ORM.

Each statement (an answer's INSERT, an exam answer's one statement, a first try's
response with its mastery step, a start's attempt and questions, an exam release's
upsert, rows write, evidence marks and events) runs on the data of a case, and so does
its ORM twin, each in a savepoint rolled back after its rows are read
(tests/sql_twins.py): both must leave the same rows, field by field with their types
(NULLs, timestamps, floats, JSON, booleans), return the same, and on PostgreSQL lock or
write the same rows. The cases are the edges each statement decides: a key used before
(ON CONFLICT), an attempt over, past its deadline or held by another writer (the exam
answer's lock), a skill row another tab stepped since it was read (the guarded upsert).
The statement table is tests/api_common/test_sql_equivalence.py.
"""

from __future__ import annotations

import copy
import threading
from datetime import timedelta

import pytest
from django.db import IntegrityError, connection, connections, transaction
from django.db.models import Q
from django.utils import timezone

from api_common.rows import (
    execute_together,
    insert,
    insert_objects,
    insert_rows_statement,
    inserted,
)
from assess.mastery import bkt
from assess.models import (
    RESPONSE_KEYS,
    Attempt,
    DrawnVariant,
    MasteryEvent,
    Question,
    Quiz,
    Response,
    SkillMastery,
)
from assess.selectors.attempt_rows import TRY_FIELDS
from assess.selectors.locked import attempt_insert_sharing_quiz
from assess.services.attempts import attempt_start
from assess.services.drawn_variants import drawn_claim, variants_predraw
from assess.services.first_tries import first_try_store
from assess.services.held_answers import held_answer_store
from assess.services.mastery import (
    _event,
    _locked_rows,
    _mark_evidence,
    _params_for,
    _rows_write,
    _upsert_steps,
    first_try_steps,
)
from assess.services.questions import question_build
from tests import row_locks
from tests.factories import QuizFactory, UserFactory
from tests.sql_twins import assert_same, fields, loaded_fields, run

pytestmark = pytest.mark.django_db

NOW = timezone.now().replace(microsecond=654321)
SKILLS = ("units-gb-gib", "weights-bytes")  # weights-memory's, in the order rows are locked


@pytest.fixture
def frozen(monkeypatch):
    """timezone.now() is NOW for the writes that stamp rows themselves."""
    monkeypatch.setattr(timezone, "now", lambda: NOW)
    return NOW


def _exam(learner, **quiz):
    quiz = QuizFactory(mode=Quiz.Mode.EXAM, slots=[["weights-memory"], ["weights-memory"]], **quiz)
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    return attempt, list(attempt.questions.order_by("order"))


def _values(attempt, question, key: str, **kw) -> dict:
    return {
        "attempt_id": attempt.pk,
        "question_id": question.pk,
        "part": question.answers[0]["name"],
        "raw": "1 GB",
        "parsed_value": None,
        "parsed_unit": "",
        "valid": True,
        "correct": False,
        "score": 0.0,
        "misconception": "",
        "feedback": "",
        "created_at": NOW,
        "time_spent_ms": None,
        "idempotency_key": key,
        "evidence": False,
        **kw,
    }


def _create_or_none(model, values: dict):
    """The ORM's INSERT ... ON CONFLICT DO NOTHING: create, or None on a unique key."""
    try:
        with transaction.atomic():
            return model.objects.create(**values).pk
    except IntegrityError:
        return None


def _responses() -> list[dict]:
    return [
        fields(r, skip=("id",)) for r in Response.objects.order_by("attempt_id", "idempotency_key")
    ]


def _mastery() -> tuple[list[dict], list[dict]]:
    """The skill rows and the events, the events' response named by its key."""
    rows = [fields(m, skip=("id",)) for m in SkillMastery.objects.order_by("learner_id", "skill")]
    events = [
        {**fields(e, skip=("id", "response_id")), "response": e.response.idempotency_key}
        for e in MasteryEvent.objects.select_related("response").order_by(
            "learner_id", "skill", "response__idempotency_key", "p_before"
        )
    ]
    return rows, events


# ------------------------------------------------------------------ an answer's INSERT


ANSWERS = {
    "new key": {},
    "key used before": {"idempotency_key": "used"},
    "values, not NULLs": {
        "parsed_value": {"value": 1.5, "unit": "GB"},
        "parsed_unit": "GB",
        "correct": True,
        "score": 0.75,
        "misconception": "gib",
        "feedback": "close",
        "time_spent_ms": 4321,
    },
    "a number as JSON": {"parsed_value": 2.5},
}


@pytest.mark.parametrize("case", list(ANSWERS))
def test_an_answer_s_insert_stores_what_create_stores(case):
    """responses.response_submit's later try: insert(Response, ..., conflict=RESPONSE_KEYS)."""
    attempt, (question, _) = _exam(UserFactory())
    Response.objects.create(**_values(attempt, question, "used", raw="earlier"))
    values = _values(attempt, question, "k", **ANSWERS[case])
    got, got_rows, _ = run(lambda: insert(Response, values, conflict=RESPONSE_KEYS), _responses)
    want, want_rows, _ = run(lambda: _create_or_none(Response, values), _responses)
    assert (got is None) == (want is None) == (case == "key used before")
    assert got_rows == want_rows
    if got is not None:
        stored, _, _ = run(
            lambda: (
                insert(Response, values, conflict=RESPONSE_KEYS),
                Response.objects.get(idempotency_key="k"),
            )
        )
        assert_same(inserted(Response, stored[0], values), stored[1])


# ------------------------------------------------------------------ a start's writes


STARTS = ["first", "a later number", "an open one exists", "the number is taken"]


@pytest.mark.parametrize("case", STARTS)
def test_a_start_s_attempt_insert_stores_what_create_stores(case):
    learner = UserFactory()
    quiz = QuizFactory(slots=[["weights-memory"]], time_limit=timedelta(minutes=30))
    if case != "first":
        Attempt.objects.create(
            quiz=quiz,
            learner=learner,
            number=1,
            status=Attempt.Status.OPEN if case == "an open one exists" else Attempt.Status.FINISHED,
            finished_at=None if case == "an open one exists" else NOW,
            score=None if case == "an open one exists" else 0.5,
        )
    values = {
        "quiz_id": quiz.pk,
        "learner_id": learner.pk,
        "number": 1 if case == "the number is taken" else (1 if case == "first" else 2),
        "status": Attempt.Status.OPEN,
        "started_at": NOW,
        "deadline": NOW + timedelta(minutes=30) if case == "first" else None,
        "finished_at": None,
        "score": None,
        "points": None,
        "mastery_applied_at": None,
    }

    def attempts():
        return [
            fields(a, skip=("id",))
            for a in Attempt.objects.order_by("quiz_id", "learner_id", "number")
        ]

    def orm():
        pk = _create_or_none(Attempt, values)
        if pk is not None:
            Quiz.objects.select_for_update(no_key=True).filter(pk=quiz.pk).exists()
        return pk

    got, got_rows, got_locks = run(
        lambda: attempt_insert_sharing_quiz(values), attempts, model=Quiz, pks=[quiz.pk]
    )
    want, want_rows, want_locks = run(orm, attempts, model=Quiz, pks=[quiz.pk])
    stored = case in ("first", "a later number")
    assert (got is not None) == (want is not None) == stored
    assert got_rows == want_rows
    if stored:  # the quiz row is held (FOR KEY SHARE: the ORM can only say a stronger lock)
        assert got_locks == want_locks
        assert got_locks in (None, {quiz.pk})


@pytest.mark.parametrize("n", [0, 1, 3])
def test_a_start_s_questions_insert_stores_what_bulk_create_stores(n):
    learner = UserFactory()
    quiz = QuizFactory(slots=[["weights-memory"]] * max(n, 1))
    attempt = Attempt.objects.create(quiz=quiz, learner=learner, number=1)
    slots = list(quiz.slots.order_by("order"))[:n]
    built = [
        question_build(attempt=attempt, slot=s, order=i + 1, variant_number=0)
        for i, s in enumerate(slots)
    ]
    if built:
        built[0].hinted_at, built[0].hint_total, built[0].statement_markdown = NOW, 2, "**x**"
    mine, theirs = copy.deepcopy(built), copy.deepcopy(built)

    def questions():
        return [fields(q, skip=("id",)) for q in Question.objects.order_by("attempt_id", "order")]

    def stored_as_read(objs):
        return [(fields(o), fields(Question.objects.get(pk=o.pk))) for o in objs]

    _, got_rows, _ = run(
        lambda: insert_objects(mine, key="order"), lambda: (questions(), stored_as_read(mine))
    )
    _, want_rows, _ = run(
        lambda: Question.objects.bulk_create(theirs), lambda: (questions(), stored_as_read(theirs))
    )
    assert got_rows[0] == want_rows[0]
    assert len(got_rows[0]) == n
    for instance, row in got_rows[1]:  # each instance got its own row's id
        assert instance == row
    assert all(not q._state.adding for q in mine)


# ------------------------------------------------------------------ an exam's answer


HELD = [
    "first save",
    "earlier saves",
    "finished",
    "past its deadline",
    "deadline ahead",
    "key used before",
]


def _orm_held(attempt, values, now):
    """held_answer_store through the ORM: the attempt's row locked if it takes answers
    (skipping one another writer holds), the response created unless its key was used,
    and the question's other valid tries."""
    with transaction.atomic():
        open_ = (
            Attempt.objects.select_for_update(of=("self",), skip_locked=True)
            .filter(pk=attempt.pk, status=Attempt.Status.OPEN)
            .filter(Q(deadline__isnull=True) | Q(deadline__gt=now))
            .first()
        )
        if open_ is None:
            return None
        pk = _create_or_none(Response, values)
        if pk is None:
            return None
        tries = Response.objects.filter(question_id=values["question_id"], valid=True)
        return pk, list(tries.exclude(pk=pk).only(*TRY_FIELDS).order_by("created_at", "id"))


def _held_case(case):
    attempt, (question, other) = _exam(UserFactory())
    if case in ("earlier saves", "key used before"):
        Response.objects.create(
            **_values(attempt, question, "used", created_at=NOW - timedelta(seconds=9))
        )
        Response.objects.create(**_values(attempt, question, "bad", valid=False))
        Response.objects.create(**_values(attempt, question, "same time", parsed_value=3.0))
        Response.objects.create(**_values(attempt, other, "other question"))
    update = {
        "finished": {"status": Attempt.Status.FINISHED, "finished_at": NOW},
        "past its deadline": {"deadline": NOW},
        "deadline ahead": {"deadline": NOW + timedelta(microseconds=1)},
    }.get(case, {})
    Attempt.objects.filter(pk=attempt.pk).update(**update)
    attempt.refresh_from_db()
    key = "used" if case == "key used before" else "new"
    return attempt, _values(attempt, question, key, parsed_value=1.0, time_spent_ms=10)


def _held_result(result):
    if result is None:
        return None
    pk, tries = result
    return pk is not None, [loaded_fields(t) for t in tries]


@pytest.mark.parametrize("case", HELD)
def test_an_exam_answer_s_statement_stores_what_the_orm_stores(case):
    attempt, values = _held_case(case)
    got, got_rows, got_locks = run(
        lambda: _held_result(held_answer_store(attempt=attempt, values=values, now=NOW)),
        _responses,
        model=Attempt,
        pks=[attempt.pk],
    )
    want, want_rows, want_locks = run(
        lambda: _held_result(_orm_held(attempt, values, NOW)),
        _responses,
        model=Attempt,
        pks=[attempt.pk],
    )
    assert got == want
    assert got_rows == want_rows
    assert got_locks == want_locks
    stored = case in ("first save", "earlier saves", "deadline ahead")
    assert (got is not None) == stored
    if case == "earlier saves":
        assert len(got[1]) == 2  # the valid saves of this question, none of another
    if got_locks is not None:
        assert got_locks == (
            {attempt.pk} if case != "finished" and case != "past its deadline" else set()
        )


@pytest.mark.django_db(transaction=True)
@pytest.mark.django_db(transaction=True)  # committed: the holder and the thread see it
def test_an_exam_answer_s_statement_skips_an_attempt_another_writer_holds():
    """PostgreSQL: while another transaction holds the attempt's row, the statement
    stores nothing and does not wait (SKIP LOCKED), as the ORM's skip_locked read."""
    if connection.vendor != "postgresql":
        pytest.skip("SQLite has no row locks: its writers take the database in turn")
    attempt, values = _held_case("first save")
    with row_locks.row_held(Attempt, attempt.pk):
        done = threading.Event()
        results = []

        def answer():
            try:
                results.append(held_answer_store(attempt=attempt, values=values, now=NOW))
                results.append(_orm_held(attempt, values, NOW))
            finally:
                connections.close_all()
                done.set()

        worker = threading.Thread(target=answer)
        worker.start()
        assert done.wait(20), "the statement waited for the lock"
        worker.join()
        assert results == [None, None]
    assert not Response.objects.filter(attempt=attempt).exists()


# ------------------------------------------------------------------ a first try


FIRST = ["no rows yet", "rows as read", "a row stepped since it was read", "key used before"]


def _orm_first_try(learner_id, question, values, read):
    """first_try_store through the ORM: the response unless its key was used, each skill
    row stepped from what was read (or, if another attempt stepped it since, from the row
    as it is now, under its lock), and one event per skill."""
    steps = first_try_steps(
        question=question, part=values["part"], score=values["score"], read=read
    )
    pk = _create_or_none(Response, values)
    if pk is None:
        return None
    params = _params_for(question.part(values["part"]))
    for skill, (before, after, count) in steps.items():
        row = (
            SkillMastery.objects.select_for_update()
            .filter(learner_id=learner_id, skill=skill)
            .first()
        )
        if row is None:
            SkillMastery.objects.create(
                learner_id=learner_id, skill=skill, p_mastery=after, responses=count, updated_at=NOW
            )
        else:
            if row.responses != count - 1:
                before, count = row.p_mastery, row.responses + 1
                after = bkt.update_score(before, values["score"], params)
            SkillMastery.objects.filter(pk=row.pk).update(
                p_mastery=after, responses=count, updated_at=NOW
            )
        MasteryEvent.objects.create(**_event(learner_id, skill, before, after, pk, NOW))
    return pk


@pytest.mark.parametrize("score", [1.0, 0.25])
@pytest.mark.parametrize("case", FIRST)
def test_a_first_try_s_writes_are_what_the_orm_writes(case, score, frozen):
    learner = UserFactory()
    attempt, (question, _) = _exam(learner)
    other = UserFactory()
    SkillMastery.objects.create(learner=other, skill=SKILLS[0], p_mastery=0.5, responses=7)
    read = {}
    if case != "no rows yet":
        SkillMastery.objects.create(
            learner=learner,
            skill=SKILLS[0],
            p_mastery=0.4,
            responses=2,
            updated_at=NOW - timedelta(days=1),
        )
        read = {SKILLS[0]: (0.4, 2)}
    if case == "a row stepped since it was read":
        SkillMastery.objects.create(learner=learner, skill=SKILLS[1], p_mastery=0.6, responses=5)
        SkillMastery.objects.filter(learner=learner, skill=SKILLS[0]).update(
            p_mastery=0.55, responses=3
        )
    if case == "key used before":
        Response.objects.create(**_values(attempt, question, "used"))
    key = "used" if case == "key used before" else "first"
    values = _values(attempt, question, key, score=score, correct=score == 1.0, evidence=True)
    pks = list(SkillMastery.objects.values_list("pk", flat=True))

    def written():
        return _responses(), _mastery()

    got, got_rows, got_touched = run(
        lambda: first_try_store(
            learner_id=learner.pk, question=question, values=dict(values), read=dict(read)
        ),
        written,
        model=SkillMastery,
        pks=pks,
    )
    want, want_rows, want_touched = run(
        lambda: _orm_first_try(learner.pk, question, values, read),
        written,
        model=SkillMastery,
        pks=pks,
    )
    assert (got is None) == (want is None) == (case == "key used before")
    assert got_rows == want_rows
    assert got_touched == want_touched
    if got is not None:
        assert len(got_rows[1][1]) == 2  # one event per skill
        assert fields(got, skip=("id",)) in got_rows[0]  # the instance is the row stored


# ------------------------------------------------------------------ mastery's statements


ROWS = ["none", "one of two", "both", "another learner's"]


def _rows_case(case):
    learner = UserFactory()
    if case in ("one of two", "both"):
        SkillMastery.objects.create(
            learner=learner,
            skill=SKILLS[1],
            p_mastery=0.35,
            responses=4,
            updated_at=NOW - timedelta(hours=1),
        )
    if case == "both":
        SkillMastery.objects.create(learner=learner, skill=SKILLS[0], p_mastery=0.8, responses=1)
    if case == "another learner's":
        SkillMastery.objects.create(
            learner=UserFactory(), skill=SKILLS[0], p_mastery=0.9, responses=9
        )
    return learner, list(SkillMastery.objects.values_list("pk", flat=True))


def _skill_rows():
    return [fields(m, skip=("id",)) for m in SkillMastery.objects.order_by("learner_id", "skill")]


@pytest.mark.parametrize("case", ROWS)
def test_a_release_s_locked_rows_are_what_the_orm_locks_and_creates(case):
    learner, pks = _rows_case(case)

    def orm():
        found = {
            m.skill: (m.p_mastery, m.responses)
            for m in SkillMastery.objects.select_for_update()
            .filter(learner=learner, skill__in=SKILLS)
            .order_by("skill")
        }
        for skill in SKILLS:
            if skill not in found:
                SkillMastery.objects.create(
                    learner=learner,
                    skill=skill,
                    p_mastery=bkt.DEFAULT_PARAMS.p_init,
                    responses=0,
                    updated_at=NOW,
                )
                found[skill] = (bkt.DEFAULT_PARAMS.p_init, 0)
        return found

    got, got_rows, got_touched = run(
        lambda: _locked_rows(learner.pk, SKILLS, NOW), _skill_rows, model=SkillMastery, pks=pks
    )
    want, want_rows, want_touched = run(orm, _skill_rows, model=SkillMastery, pks=pks)
    assert {k: [type(x) for x in v] + list(v) for k, v in got.items()} == {
        k: [type(x) for x in v] + list(v) for k, v in want.items()
    }
    assert got_rows == want_rows
    assert got_touched == want_touched
    if got_touched is not None:  # the learner's own rows, none of another's
        assert got_touched == set(
            SkillMastery.objects.filter(learner=learner).values_list("pk", flat=True)
        )


@pytest.mark.parametrize("marked", [0, 1, 3], ids=["no answers", "one answer", "several answers"])
@pytest.mark.parametrize("case", ROWS)
def test_a_release_s_writes_are_what_the_orm_writes(case, marked):
    """mastery_apply's three writes, together (one statement on PostgreSQL)."""
    learner, pks = _rows_case(case)
    attempt, (q1, q2) = _exam(learner)
    answers = [
        Response.objects.create(**_values(attempt, q, f"k{i}", score=0.5 * i, evidence=i == 2))
        for i, q in zip(range(marked), [q1, q2, q1], strict=False)
    ]
    Response.objects.create(**_values(attempt, q2, "not released"))
    new = {SKILLS[0]: (0.61, 5), SKILLS[1]: (0.125, 1)}
    events = [
        _event(learner.pk, skill, 0.5, p, r.pk, NOW)
        for r in answers
        for skill, (p, _) in new.items()
    ]

    def sql():
        unmarked = [r for r in answers if not r.evidence]
        writes = [_rows_write(learner.pk, new, NOW)]
        writes += [_mark_evidence(unmarked)] if unmarked else []
        writes += [insert_rows_statement(MasteryEvent, events)] if events else []
        execute_together(writes)

    def orm():
        for skill, (p, count) in new.items():
            SkillMastery.objects.update_or_create(
                learner=learner,
                skill=skill,
                defaults={"p_mastery": p, "responses": count, "updated_at": NOW},
            )
        Response.objects.filter(pk__in=[r.pk for r in answers]).update(evidence=True)
        MasteryEvent.objects.bulk_create([MasteryEvent(**e) for e in events])

    def written():
        return _responses(), _mastery()

    _, got_rows, got_touched = run(sql, written, model=SkillMastery, pks=pks)
    _, want_rows, want_touched = run(orm, written, model=SkillMastery, pks=pks)
    assert got_rows == want_rows
    assert got_touched == want_touched
    assert len(got_rows[1][1]) == 2 * marked


GUARD = ["fresh", "as read", "stepped since it was read"]


@pytest.mark.parametrize("case", GUARD)
def test_the_guarded_upsert_writes_what_the_orm_guard_writes(case):
    """mastery._upsert_steps (SQLite's first try; services.first_tries' upsert is the
    same SQL on PostgreSQL): a row is written only if its count is the one stepped from."""
    learner = UserFactory()
    if case != "fresh":
        SkillMastery.objects.create(learner=learner, skill=SKILLS[0], p_mastery=0.4, responses=2)
    if case == "stepped since it was read":
        SkillMastery.objects.filter(skill=SKILLS[0]).update(responses=3, p_mastery=0.45)
    steps = {SKILLS[0]: (0.4, 0.52, 3), SKILLS[1]: (0.3, 0.375, 1)}
    pks = list(SkillMastery.objects.values_list("pk", flat=True))

    def orm():
        written = set()
        for skill, (_, after, count) in steps.items():
            row = (
                SkillMastery.objects.select_for_update()
                .filter(learner=learner, skill=skill)
                .first()
            )
            if row is None:
                SkillMastery.objects.create(
                    learner=learner, skill=skill, p_mastery=after, responses=count, updated_at=NOW
                )
            elif row.responses == count - 1:
                SkillMastery.objects.filter(pk=row.pk).update(
                    p_mastery=after, responses=count, updated_at=NOW
                )
            else:
                continue
            written.add(skill)
        return written

    got, got_rows, got_touched = run(
        lambda: _upsert_steps(learner.pk, steps, NOW), _skill_rows, model=SkillMastery, pks=pks
    )
    want, want_rows, want_touched = run(orm, _skill_rows, model=SkillMastery, pks=pks)
    assert got == want
    assert got_rows == want_rows
    assert got_touched == want_touched
    assert (SKILLS[0] in got) == (case != "stepped since it was read")


# ------------------------------------------------------------ a start's drawn variants


@pytest.mark.parametrize("waiting", [0, 1, 3], ids=["empty", "one each", "three each"])
def test_a_start_s_drawn_claim_takes_what_the_orm_takes(waiting):
    """The claim deletes and returns each slot's lowest-numbered waiting variant, as
    reading them through the ORM and deleting them does; another quiz's pool is left."""
    quiz = QuizFactory(mode=Quiz.Mode.EXAM, slots=[["weights-memory"], ["gb-gib"], ["gb-gib"]])
    neighbour = QuizFactory(mode=Quiz.Mode.EXAM, slots=[["gb-gib"]])
    for q in (quiz, neighbour):
        variants_predraw(quiz=q, wanted=waiting)
    DrawnVariant.objects.filter(slot__order=3, slot__quiz=quiz).delete()  # one slot ran dry
    pks = list(DrawnVariant.objects.values_list("pk", flat=True))

    def left():
        return sorted(DrawnVariant.objects.values_list("pk", flat=True))

    def orm() -> dict:
        taken = {}
        for slot in quiz.slots.all():
            first = DrawnVariant.objects.filter(slot=slot).order_by("number").first()
            if first is not None:
                taken[slot.pk] = copy.deepcopy(first)
                first.delete()
        return taken

    got, got_left, got_touched = run(
        lambda: drawn_claim(quiz_id=quiz.pk), left, model=DrawnVariant, pks=pks
    )
    want, want_left, want_touched = run(orm, left, model=DrawnVariant, pks=pks)
    assert sorted(got) == sorted(want) and len(got) == (2 if waiting else 0)
    for slot_id, row in got.items():
        assert_same(row, want[slot_id])
    assert got_left == want_left
    assert got_touched == want_touched


@pytest.mark.django_db(transaction=True)  # the pool committed: the other connection sees it
def test_a_start_s_drawn_claim_skips_a_variant_another_start_holds():
    """PostgreSQL: a start takes the next waiting variant when another start's
    transaction holds the first (SKIP LOCKED), rather than waiting for it to commit."""
    if connection.vendor != "postgresql":
        pytest.skip("SQLite's writers take the database in turn: nothing to skip")
    quiz = QuizFactory(mode=Quiz.Mode.EXAM, slots=[["gb-gib"]])
    variants_predraw(quiz=quiz, wanted=2)
    first = DrawnVariant.objects.get(number=1)
    with (
        row_locks.row_held(DrawnVariant, first.pk),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("SET LOCAL lock_timeout = '5s'")  # a claim that waits fails
        taken = drawn_claim(quiz_id=quiz.pk)
    assert [row.number for row in taken.values()] == [2]
    assert list(DrawnVariant.objects.values_list("number", flat=True)) == [1]
