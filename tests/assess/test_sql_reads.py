"""The answer path's hand-written reads, each held to the queryset that says the same.

Every statement of assess/selectors/writers.py, quiz_rows.py, attempt_rows.py and
locked.py (and the token check's, tests/api_common/test_sql_equivalence.py) runs beside
its ORM twin on the same rows, and both must give the same instances field by field
(tests/sql_twins.py), over the data each statement has to get right: nothing there,
NULLs, several rows and their order, rows of other people or other attempts that must
not come back, and on PostgreSQL the rows a locking read locks. Runs on both databases
(never db_independent); the statement table is tests/api_common/test_sql_equivalence.py.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db.models import Q
from django.utils import timezone

from assess.models import (
    Attempt,
    CourseRole,
    Enrolment,
    Question,
    Quiz,
    Response,
    Reveal,
    SkillMastery,
)
from assess.selectors.access import _reachable
from assess.selectors.attempt_rows import TRY_FIELDS, active_rows
from assess.selectors.locked import attempt_locked, attempts_locked, locked_state, quiz_with_slots
from assess.selectors.quiz_rows import quiz_get_reachable
from assess.selectors.writers import (
    attempt_get_for_writer,
    attempt_get_own,
    question_get_for_writer,
)
from assess.services.attempts import attempt_start
from tests.factories import (
    CourseFactory,
    CourseRoleFactory,
    EnrolmentFactory,
    QuizFactory,
    UserFactory,
)
from tests.sql_twins import assert_same, assert_same_lists, fields, loaded_fields, locks

pytestmark = pytest.mark.django_db

T0 = timezone.now().replace(microsecond=123456)


def _response(attempt, question, key: str, **kw) -> Response:
    values = {
        "part": question.answers[0]["name"],
        "raw": "1 GB",
        "parsed_value": None,
        "parsed_unit": "",
        "valid": True,
        "correct": False,
        "score": 0.0,
        "misconception": "",
        "feedback": "",
        "created_at": T0,
        "time_spent_ms": None,
        "evidence": False,
        **kw,
    }
    return Response.objects.create(
        attempt=attempt, question=question, idempotency_key=key, **values
    )


def _answered(attempt, questions) -> None:
    """Several responses (NULLs and values, an invalid one, two stored at the same
    instant), a reveal and a hint on the first question, a response on the second."""
    q1, q2 = questions
    _response(
        attempt, q1, "a", created_at=T0, time_spent_ms=1234, evidence=True, correct=True, score=1.0
    )
    _response(
        attempt, q1, "b", created_at=T0, parsed_value={"value": 1.5, "unit": "GB"}, parsed_unit="GB"
    )
    _response(
        attempt, q1, "c", created_at=T0 - timedelta(seconds=3), valid=False, raw="x", feedback="?"
    )
    _response(
        attempt, q2, "d", created_at=T0 + timedelta(seconds=1), score=0.75, misconception="gib"
    )
    Reveal.objects.create(question=q1, part=q1.answers[0]["name"], created_at=T0)
    Question.objects.filter(pk=q1.pk).update(hinted_at=T0, hints={"steps": 1}, hint_total=2)


def _replaced(attempt, questions) -> Question:
    """The first question replaced by a new variant (answered and revealed before, answered
    after)."""
    q1, _ = questions
    _response(attempt, q1, "old")
    Reveal.objects.create(question=q1, part=q1.answers[0]["name"], created_at=T0)
    Question.objects.filter(pk=q1.pk).update(active=False)
    q1.pk, q1.variant_number, q1.active = None, 1, True
    q1.save()
    _response(attempt, q1, "new", created_at=T0 + timedelta(seconds=5))
    return q1


def _started(learner, *, course=None, **quiz):
    quiz = QuizFactory(
        course=course,
        slots=[["weights-memory"], {"templates": ["weights-memory"], "points": 3}],
        **quiz,
    )
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    return attempt, list(attempt.questions.order_by("order"))


# ------------------------------------------------------------------ attempt_rows


@pytest.mark.parametrize("shape", ["fresh", "answered", "replaced", "no questions", "no attempt"])
def test_active_rows_read_what_their_querysets_read(shape):
    learner = UserFactory()
    attempt, questions = _started(learner)
    other, other_qs = _started(UserFactory())
    _answered(other, other_qs)  # another attempt's rows never come back
    pk = attempt.pk
    if shape == "answered":
        _answered(attempt, questions)
    elif shape == "replaced":
        _replaced(attempt, questions)
    elif shape == "no questions":
        Question.objects.filter(attempt=attempt).delete()
    elif shape == "no attempt":
        pk = -1
    got_questions, got_responses, got_reveals = active_rows(pk)
    want_questions = list(
        Question.objects.filter(attempt_id=pk, active=True)
        .select_related("slot")
        .order_by("order", "id")
    )
    assert_same_lists(got_questions, want_questions)
    assert_same_lists([q.slot for q in got_questions], [q.slot for q in want_questions])
    assert_same_lists(
        got_responses,
        list(
            Response.objects.filter(attempt_id=pk, question__active=True).order_by(
                "created_at", "id"
            )
        ),
    )
    assert_same_lists(
        got_reveals,
        list(
            Reveal.objects.filter(question__attempt_id=pk, question__active=True).order_by(
                "created_at", "id"
            )
        ),
    )
    if shape == "answered":
        assert len(got_responses) == 4 and len(got_reveals) == 1
    if shape == "replaced":
        assert [r.idempotency_key for r in got_responses] == ["new"]
        assert got_reveals == []  # the replaced variant's reveal is not the attempt's now


# ------------------------------------------------------------------ writers


def _writer_rule(user) -> Q:
    """_WRITER_RULE as the ORM says it."""
    own = Q(learner_id=user.pk)
    if user.is_staff:
        return own
    enrolled = Enrolment.objects.filter(user=user).values("course_id")
    taught = CourseRole.objects.filter(user=user, role=CourseRole.Role.INSTRUCTOR).values(
        "course_id"
    )
    return own & (
        Q(quiz__course__isnull=True)
        | Q(quiz__course_id__in=enrolled)
        | Q(quiz__course_id__in=taught)
    )


WRITERS = [
    "learner",
    "learner removed",
    "staff learner",
    "instructor learner",
    "another learner",
    "staff",
]


def _writer_case(who: str, with_course: bool):
    course = CourseFactory() if with_course else None
    learner = UserFactory(is_staff=who == "staff learner")
    if course is not None and who in ("learner", "learner removed", "another learner", "staff"):
        EnrolmentFactory(user=learner, course=course)
    if course is not None and who == "instructor learner":
        CourseRoleFactory(user=learner, course=course)
    attempt, questions = _started(learner, course=course)
    _answered(attempt, questions)
    if course is not None and who == "learner removed":
        Enrolment.objects.filter(user=learner).delete()
    user = learner
    if who == "another learner":
        user = UserFactory()
        if course is not None:
            EnrolmentFactory(user=user, course=course)
    elif who == "staff":
        user = UserFactory(is_staff=True)
    Attempt.objects.filter(pk=attempt.pk).update(deadline=T0, score=0.5)
    return user, attempt, questions


def _or_none(call, exc):
    try:
        return call()
    except exc:
        return None


@pytest.mark.parametrize("with_course", [True, False], ids=["course", "no course"])
@pytest.mark.parametrize("who", WRITERS)
def test_the_write_gate_reads_what_its_queryset_reads(who, with_course):
    user, attempt, questions = _writer_case(who, with_course)
    foreign, _ = _started(user) if who != "staff" else _started(UserFactory())
    got = _or_none(lambda: attempt_get_for_writer(user=user, pk=attempt.pk), Attempt.DoesNotExist)
    want = Attempt.objects.select_related("quiz").filter(_writer_rule(user), pk=attempt.pk).first()
    assert (got is None) == (want is None)
    if want is not None:
        assert_same(got, want)
        assert_same(got.quiz, want.quiz)
        assert got.learner.pk == want.learner_id
    for question in [*questions, *foreign.questions.all()]:
        got_q = _or_none(
            lambda q=question: question_get_for_writer(user=user, attempt_pk=attempt.pk, pk=q.pk),
            Question.DoesNotExist,
        )
        want_q = (
            Question.objects.select_related("slot", "attempt__quiz")
            .filter(
                pk=question.pk,
                attempt_id=attempt.pk,
                attempt__in=Attempt.objects.filter(_writer_rule(user)),
            )
            .first()
        )
        assert (got_q is None) == (want_q is None), question.pk
        if want_q is not None:
            assert_same(got_q, want_q)
            assert_same(got_q.slot, want_q.slot)
            assert_same(got_q.attempt, want_q.attempt)
            assert_same(got_q.attempt.quiz, want_q.attempt.quiz)
    got_own = attempt_get_own(user=user, pk=attempt.pk)
    want_own = Attempt.objects.select_related("quiz").filter(pk=attempt.pk, learner=user).first()
    assert (got_own is None) == (want_own is None)
    if want_own is not None:
        assert_same(got_own, want_own)
        assert_same(got_own.quiz, want_own.quiz)
    expected = who in ("learner", "staff learner", "instructor learner") or (
        who == "learner removed" and not with_course
    )
    assert (got is not None) == expected


# ------------------------------------------------------------------ quiz_rows


QUIZ_SHAPES = {
    "bare": {},
    "every value": {
        "time_limit": timedelta(minutes=30),
        "cooldown": timedelta(hours=1, seconds=5),
        "attempts_allowed": 3,
        "opens_at": T0,
        "closes_at": T0 + timedelta(days=2),
        "penalty_per_try": 0.125,
        "hint_penalty": 0.2,
        "pass_mark": 0.7,
        "tries_per_part": 2,
    },
}


@pytest.mark.parametrize("shape", list(QUIZ_SHAPES))
@pytest.mark.parametrize("who", ["enrolled", "instructor", "staff", "stranger"])
@pytest.mark.parametrize("where", ["course", "no course"])
def test_the_quiz_gate_reads_what_its_queryset_reads(shape, who, where):
    course = CourseFactory() if where == "course" else None
    user = UserFactory(is_staff=who == "staff")
    if who == "enrolled" and course:
        EnrolmentFactory(user=user, course=course)
    if who == "instructor" and course:
        CourseRoleFactory(user=user, course=course)
    quizzes = [
        QuizFactory(
            course=course,
            status=status,
            created_by=user if shape == "every value" else None,
            **QUIZ_SHAPES[shape],
        )
        for status in (Quiz.Status.PUBLISHED, Quiz.Status.DRAFT)
    ]
    for quiz in quizzes:
        got = _or_none(lambda q=quiz: quiz_get_reachable(user=user, pk=q.pk), Quiz.DoesNotExist)
        qs = Quiz.objects.select_related("course").filter(adaptive=False, pk=quiz.pk)
        want = (qs if user.is_staff else qs.filter(_reachable(user))).first()
        assert (got is None) == (want is None), (quiz.status, who, where)
        if want is not None:
            assert_same(got, want)
            if want.course is None:
                assert got.course is None
            else:
                assert_same(got.course, want.course)


# ------------------------------------------------------------------ locked


def _orm_locked_state(attempt, question, skills):
    head = Attempt.objects.select_for_update(of=("self",)).get(pk=attempt.pk)
    q = Question.objects.get(pk=question.pk, attempt_id=attempt.pk)
    return {
        "status": head.status,
        "deadline": head.deadline,
        "active": q.active,
        "hinted": q.hinted_at is not None,
        "revealed": Reveal.objects.filter(question=q).exists(),
        "tries": list(
            Response.objects.filter(question=q, valid=True)
            .only(*TRY_FIELDS)
            .order_by("created_at", "id")
        ),
        "skill_rows": {
            m.skill: (m.p_mastery, m.responses)
            for m in SkillMastery.objects.filter(learner_id=attempt.learner_id, skill__in=skills)
        },
    }


def _state_of(state) -> dict:
    return {
        k: getattr(state, k)
        for k in ("status", "deadline", "active", "hinted", "revealed", "tries", "skill_rows")
    }


LOCKED_SHAPES = [
    "fresh",
    "answered",
    "replaced question",
    "no skills asked",
    "other attempt's question",
    "finished",
]


@pytest.mark.parametrize("shape", LOCKED_SHAPES)
def test_the_answer_s_locked_read_reads_what_its_querysets_read(shape):
    learner = UserFactory()
    attempt, questions = _started(learner)
    question = questions[0]
    skills = ("units-gb-gib", "weights-bytes")
    if shape != "fresh":
        _answered(attempt, questions)
        SkillMastery.objects.create(
            learner=learner, skill="weights-bytes", p_mastery=0.375, responses=4
        )
        SkillMastery.objects.create(learner=learner, skill="unasked", p_mastery=0.9, responses=1)
        SkillMastery.objects.create(
            learner=UserFactory(), skill="units-gb-gib", p_mastery=0.5, responses=2
        )
    if shape == "replaced question":
        Question.objects.filter(pk=question.pk).update(active=False)
    if shape == "no skills asked":
        skills = ()
    if shape == "other attempt's question":
        question = _started(UserFactory())[1][0]
    if shape == "finished":
        Attempt.objects.filter(pk=attempt.pk).update(status=Attempt.Status.FINISHED, deadline=T0)
    rows = [attempt.pk]

    def sql():
        return _or_none(
            lambda: _state_of(locked_state(attempt=attempt, question=question, skills=skills)),
            Attempt.DoesNotExist,
        )

    def orm():
        return _or_none(lambda: _orm_locked_state(attempt, question, skills), Question.DoesNotExist)

    (got, got_locks), (want, want_locks) = locks(Attempt, rows, sql), locks(Attempt, rows, orm)
    assert got_locks == want_locks
    assert got_locks in (None, {attempt.pk})
    assert (got is None) == (want is None)
    if want is not None:
        got_tries, want_tries = got.pop("tries"), want.pop("tries")
        assert [loaded_fields(t) for t in got_tries] == [loaded_fields(t) for t in want_tries]
        assert {k: (type(v), v) for k, v in got.items()} == {
            k: (type(v), v) for k, v in want.items()
        }
    if shape == "answered":
        assert len(got_tries) == 2 and got["skill_rows"] == {"weights-bytes": (0.375, 4)}


@pytest.mark.parametrize("shape", ["none", "one open", "several", "other learner's only"])
def test_a_start_s_locked_attempts_are_what_their_queryset_locks(shape):
    learner, other = UserFactory(), UserFactory()
    quiz = QuizFactory(slots=[["weights-memory"]])
    Attempt.objects.create(quiz=quiz, learner=other, number=1)
    if shape in ("one open", "several"):
        Attempt.objects.create(
            quiz=quiz, learner=learner, number=1 if shape == "one open" else 3, deadline=T0
        )
    if shape == "several":
        for number, status in ((1, Attempt.Status.FINISHED), (2, Attempt.Status.EXPIRED)):
            Attempt.objects.create(
                quiz=quiz,
                learner=learner,
                number=number,
                status=status,
                finished_at=T0,
                score=0.625,
                points=2.5,
                mastery_applied_at=T0,
            )
    Attempt.objects.create(quiz=QuizFactory(slots=[]), learner=learner, number=1)  # another quiz
    pks = list(Attempt.objects.values_list("pk", flat=True))
    got, got_locks = locks(
        Attempt, pks, lambda: attempts_locked(quiz_id=quiz.pk, learner_id=learner.pk)
    )
    want, want_locks = locks(
        Attempt,
        pks,
        lambda: list(
            Attempt.objects.select_for_update(of=("self",))
            .filter(quiz_id=quiz.pk, learner_id=learner.pk)
            .order_by("-number")
        ),
    )
    assert_same_lists(got, want)
    assert got_locks == want_locks
    assert len(got) == {"none": 0, "one open": 1, "several": 3, "other learner's only": 0}[shape]
    if got_locks is not None:
        assert got_locks == {a.pk for a in want}


@pytest.mark.parametrize("shape", ["open, no deadline", "finished", "gone"])
def test_a_finish_s_locked_attempt_is_what_its_queryset_locks(shape):
    learner = UserFactory()
    quiz = QuizFactory(slots=[])
    attempt = Attempt.objects.create(quiz=quiz, learner=learner, number=1)
    Attempt.objects.create(quiz=quiz, learner=UserFactory(), number=1)
    if shape == "finished":
        Attempt.objects.filter(pk=attempt.pk).update(
            status=Attempt.Status.FINISHED, finished_at=T0, score=1.0, points=3.0, deadline=T0
        )
    pk = -1 if shape == "gone" else attempt.pk
    pks = list(Attempt.objects.values_list("pk", flat=True))
    got, got_locks = locks(
        Attempt, pks, lambda: _or_none(lambda: attempt_locked(pk=pk), Attempt.DoesNotExist)
    )
    want, want_locks = locks(
        Attempt, pks, lambda: Attempt.objects.select_for_update(of=("self",)).filter(pk=pk).first()
    )
    assert (got is None) == (want is None) == (shape == "gone")
    if want is not None:
        assert_same(got, want)
    assert got_locks == want_locks
    assert got_locks in (None, set() if shape == "gone" else {attempt.pk})


@pytest.mark.parametrize(
    "slots",
    [
        [],
        [["weights-memory"]],
        [{"templates": ["weights-memory", "gb-gib"], "points": 3}, ["weights-memory"], ["gb-gib"]],
    ],
    ids=["no slots", "one", "several"],
)
def test_a_start_s_quiz_with_slots_is_what_its_querysets_read(slots):
    quiz = QuizFactory(slots=slots, time_limit=timedelta(minutes=5))
    QuizFactory(slots=[["weights-memory"]])  # another quiz's slots never come back
    got_quiz, got_slots = quiz_with_slots(pk=quiz.pk)
    want_quiz = Quiz.objects.get(pk=quiz.pk)
    want_slots = list(want_quiz.slots.order_by("order"))
    assert_same(got_quiz, want_quiz)
    assert_same_lists(got_slots, want_slots)
    assert all(s.quiz is got_quiz for s in got_slots)
    assert len(got_slots) == len(slots)
    with pytest.raises(Quiz.DoesNotExist):
        quiz_with_slots(pk=-1)


def test_the_twins_see_a_difference():
    """The comparison itself: one field apart (or a type apart) is not the same."""
    learner = UserFactory()
    attempt, _ = _started(learner)
    read = Attempt.objects.get(pk=attempt.pk)
    changed = Attempt.objects.get(pk=attempt.pk)
    changed.score = 0
    assert fields(read) != fields(changed)
    changed.score = None
    assert fields(read) == fields(changed)
    changed.number = float(changed.number)
    assert fields(read) != fields(changed)  # 1.0 == 1, but not the same type
