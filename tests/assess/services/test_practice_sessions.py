"""Lesson practice in sessions of n questions: bounded, ended by a finish, and honest
about mastery (a finish and a new session change no estimate)."""

from __future__ import annotations

import pytest

from api_common.service_errors import Conflict, InvalidInput, NotPermitted
from assess.models import Attempt, MasteryEvent, SkillMastery
from assess.services.attempts import attempt_finish
from assess.services.practice_sessions import MAX_LENGTH, practice_session_start
from assess.services.questions import practice_question_add
from assess.services.responses import response_submit
from tests.assess.helpers import correct_text
from tests.factories import CourseFactory, EnrolmentFactory, LessonFactory, ModuleFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def lesson():
    return LessonFactory(templates=["weights-memory"])


def test_a_session_draws_n_questions_then_takes_no_more(learner, lesson):
    first = practice_session_start(learner=learner, lesson=lesson, length=3)
    assert first.attempt.practice_length == 3 and first.question.order == 1
    orders = [
        practice_question_add(learner=learner, lesson=lesson).question.order for _ in range(2)
    ]
    assert orders == [2, 3]
    with pytest.raises(Conflict, match="all its 3 questions"):
        practice_question_add(learner=learner, lesson=lesson)
    assert first.attempt.questions.count() == 3


def test_a_new_session_finishes_the_open_one_and_starts_at_question_one(learner, lesson):
    old = practice_session_start(learner=learner, lesson=lesson, length=5)
    new = practice_session_start(learner=learner, lesson=lesson, length=10)
    old_attempt = Attempt.objects.get(pk=old.attempt.pk)
    assert old_attempt.status == Attempt.Status.FINISHED and old_attempt.finished_at
    assert new.attempt.pk != old.attempt.pk and new.attempt.number == 2
    assert new.attempt.practice_length == 10 and new.question.order == 1


def test_the_next_question_after_a_finish_opens_a_session_of_the_given_length(learner, lesson):
    practice = practice_session_start(learner=learner, lesson=lesson, length=2)
    attempt_finish(attempt=practice.attempt)
    after = practice_question_add(learner=learner, lesson=lesson, session=7)
    assert after.attempt.pk != practice.attempt.pk and after.attempt.practice_length == 7


def test_open_ended_practice_is_unchanged(learner, lesson):
    """The API's practice: no length, no end, questions keep coming."""
    for i in range(1, 8):
        practice = practice_question_add(learner=learner, lesson=lesson)
        assert practice.question.order == i and practice.attempt.practice_length is None


@pytest.mark.parametrize("length", [0, -1, MAX_LENGTH + 1])
def test_a_length_out_of_bounds_is_refused_naming_the_field(learner, lesson, length):
    with pytest.raises(InvalidInput) as err:
        practice_session_start(learner=learner, lesson=lesson, length=length)
    assert err.value.field == "questions"
    assert not Attempt.objects.exists()


def test_a_refused_new_session_leaves_the_open_one_open(learner):
    """The learner was removed from a course that takes no self-enrolment: the new
    session is refused and the transaction keeps their open session as it was."""
    closed = CourseFactory(self_enrol=False)
    lesson = LessonFactory(module=ModuleFactory(course=closed), templates=["weights-memory"])
    enrolment = EnrolmentFactory(user=learner, course=closed)
    open_session = practice_session_start(learner=learner, lesson=lesson, length=5)
    enrolment.delete()
    with pytest.raises(NotPermitted):
        practice_session_start(learner=learner, lesson=lesson, length=5)
    assert Attempt.objects.get(pk=open_session.attempt.pk).is_open


def test_finishing_a_session_and_starting_another_change_no_estimate(learner, lesson):
    practice = practice_session_start(learner=learner, lesson=lesson, length=2)
    part = practice.question.answers[0]
    response_submit(
        attempt=practice.attempt,
        question=practice.question,
        part=part["name"],
        text=correct_text(part),
        idempotency_key="a",
    )
    before = dict(SkillMastery.objects.values_list("skill", "p_mastery"))
    events = MasteryEvent.objects.count()
    practice_session_start(learner=learner, lesson=lesson, length=2)
    assert dict(SkillMastery.objects.values_list("skill", "p_mastery")) == before
    assert MasteryEvent.objects.count() == events == len(before)


def test_a_session_interleaves_the_lessons_templates(learner):
    """Issue 36: five questions of one template from a lesson of four. Now a session of
    five asks all four, none twice in a row, even answered wrong every time (which kept
    one skill the weakest)."""
    four = ["weights-memory", "kv-cache-per-token", "gb-gib", "tp-min-gpus"]
    lesson = LessonFactory(templates=four)
    first = practice_session_start(learner=learner, lesson=lesson, length=5)
    asked = [first.question]
    for _ in range(4):
        question = asked[-1]
        for part in question.answers:  # a wrong first try: the weakest stays weakest
            response_submit(
                attempt=first.attempt,
                question=question,
                part=part["name"],
                text="1",
                idempotency_key=f"{question.pk}-{part['name']}",
            )
        asked.append(practice_question_add(learner=learner, lesson=lesson).question)
    slugs = [q.template_slug for q in asked]
    assert set(slugs[:4]) == set(four), slugs
    assert all(x != y for x, y in zip(slugs, slugs[1:], strict=False)), slugs
