"""A quiz's edits and unpublishing racing its first start, on real PostgreSQL.

The lifecycle services lock the quiz row and count its attempts (guards.
lock_counting_attempts); a start inserts an attempt that refers to the quiz. Either the
change commits first and the start sees it (the new slots, or no published quiz), or the
start commits first and the change is refused: never a change that lands on a quiz
someone is already taking, and never an attempt built from slots that no longer exist.
"""

from __future__ import annotations

import pytest

from api_common.service_errors import Conflict
from assess.models import Attempt, Quiz
from assess.services.attempts import attempt_start
from assess.services.quizzes import QuizSpec, SlotSpec, quiz_create, quiz_update
from assess.services.quizzes.lifecycle import quiz_unpublish
from tests.factories import CourseFactory, CourseRoleFactory, EnrolmentFactory, UserFactory
from tests.services.test_assess_races import run_together

ROUNDS = 4  # which side wins varies from round to round; every round must be consistent


@pytest.fixture
def world(services_ready, transactional_db):
    course = CourseFactory(slug="races")
    instructor = UserFactory(username="teacher")
    CourseRoleFactory(user=instructor, course=course)
    learners = [UserFactory(username=f"learner{i}") for i in range(ROUNDS)]
    for learner in learners:
        EnrolmentFactory(user=learner, course=course)
    return course, instructor, learners


def spec(course, template: str) -> QuizSpec:
    return QuizSpec(
        title="Week 1", mode="homework", course_slug=course.slug, slots=[SlotSpec([template])]
    )


def test_an_edit_racing_the_first_start_is_refused_or_seen_by_it(world):
    course, instructor, learners = world
    for learner in learners:
        quiz = quiz_create(user=instructor, spec=spec(course, "gb-gib"))

        def act(i, quiz=quiz, learner=learner):
            if i == 0:
                return quiz_update(user=instructor, quiz=quiz, spec=spec(course, "weights-memory"))
            return attempt_start(quiz=Quiz.objects.get(pk=quiz.pk), learner=learner)

        edit, start = run_together(2, act)
        assert not isinstance(start, Exception), start
        attempt, created = start
        assert created
        drawn = {q.template_slug for q in attempt.questions.all()}
        if isinstance(edit, Conflict):  # the start committed first: the quiz stays as it was
            assert drawn == {"gb-gib"}
            assert [s.templates for s in quiz.slots.all()] == [["gb-gib"]]
        else:
            assert not isinstance(edit, Exception), edit
            assert drawn == {"weights-memory"}  # the start waited for the edit and read it


def test_unpublishing_racing_the_first_start_leaves_one_of_them(world):
    course, instructor, learners = world
    outcomes = set()
    for learner in learners:
        quiz = quiz_create(user=instructor, spec=spec(course, "gb-gib"))

        def act(i, quiz=quiz, learner=learner):
            if i == 0:
                return quiz_unpublish(user=instructor, quiz=quiz)
            return attempt_start(quiz=Quiz.objects.get(pk=quiz.pk), learner=learner)

        unpublish, start = run_together(2, act)
        quiz.refresh_from_db()
        started = Attempt.objects.filter(quiz=quiz).count()
        if isinstance(unpublish, Conflict):  # the start won: published, one attempt
            assert quiz.status == Quiz.Status.PUBLISHED and started == 1
            assert not isinstance(start, Exception), start
            outcomes.add("start")
        else:  # the unpublish won: a draft no one is taking, the start refused
            assert not isinstance(unpublish, Exception), unpublish
            assert quiz.status == Quiz.Status.DRAFT and started == 0
            assert isinstance(start, Conflict), start
            outcomes.add("unpublish")
    assert outcomes  # every round ended one way or the other, checked above
