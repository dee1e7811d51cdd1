"""The quiz gate as SQL (selectors.quiz_rows) says what access._reachable's ORM rule says,
for every role a user can hold towards a quiz and every state the quiz can be in: the
list of quizzes and the gate of one quiz are one rule written twice, held together here."""

from __future__ import annotations

import itertools

import pytest

from assess.models import Quiz
from assess.selectors import quiz_get_for_user
from assess.selectors.access import _reachable
from tests.factories import (
    CourseFactory,
    CourseRoleFactory,
    EnrolmentFactory,
    QuizFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

ROLES = ["staff", "enrolled", "stranger", "instructor", "instructor elsewhere"]
STATES = list(
    itertools.product(
        ["with course", "no course"],
        [Quiz.Status.PUBLISHED, Quiz.Status.DRAFT],
        [False, True],  # adaptive
    )
)


def _user(role: str, course):
    user = UserFactory(is_staff=role == "staff")
    if role == "enrolled":
        EnrolmentFactory(user=user, course=course)
    elif role == "instructor":
        CourseRoleFactory(user=user, course=course)
    elif role == "instructor elsewhere":
        CourseRoleFactory(user=user, course=CourseFactory())
        EnrolmentFactory(user=user, course=CourseFactory())
    return user


def _orm_rule(user, pk: int) -> bool:
    qs = Quiz.objects.filter(adaptive=False, pk=pk)
    if not user.is_staff:
        qs = qs.filter(_reachable(user))
    return qs.exists()


@pytest.mark.parametrize("role", ROLES)
def test_the_sql_gate_agrees_with_the_orm_rule(role):
    course = CourseFactory()
    user = _user(role, course)
    seen = []
    for where, status, adaptive in STATES:
        quiz = QuizFactory(
            course=course if where == "with course" else None, status=status, adaptive=adaptive
        )
        try:
            got = quiz_get_for_user(user=user, pk=quiz.pk)
        except Quiz.DoesNotExist:
            found = False
        else:
            found = True
            assert got == quiz
            assert got.course == quiz.course  # read with it, None for no course
        assert found == _orm_rule(user, quiz.pk), (role, where, status, adaptive)
        seen.append(found)
    if role == "staff":
        assert seen.count(True) == 4  # every non-adaptive quiz
    if role == "stranger":
        assert seen.count(True) == 1  # only the published quiz with no course


def test_the_gate_reads_the_course_with_the_quiz(django_assert_num_queries):
    course = CourseFactory()
    user = _user("enrolled", course)
    quiz = QuizFactory(course=course, status=Quiz.Status.PUBLISHED)
    with django_assert_num_queries(1):
        got = quiz_get_for_user(user=user, pk=quiz.pk)
        assert got.course.slug == course.slug
