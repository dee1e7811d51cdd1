"""Reads on a user's behalf. These are the only gate to another learner's data.

A user who may not see an object gets DoesNotExist (the API's 404), never a hint that it
exists. Learners see the quizzes of the courses they are enrolled in (and quizzes with
no course) and their own attempts; instructors (CourseRole) see their courses' quizzes,
the attempts on them and their enrolled learners; staff see everything.
"""

from __future__ import annotations

from datetime import datetime

from django.db.models import Q, QuerySet
from django.utils import timezone

from assess.models import Attempt, CourseRole, Enrolment, Extension, Question, Quiz
from curricula.models import Course


def _instructed_course_ids(user) -> QuerySet:
    return CourseRole.objects.filter(user=user, role=CourseRole.Role.INSTRUCTOR).values("course_id")


def user_is_instructor(*, user, course_id: int | None) -> bool:
    if course_id is None:
        return False
    return CourseRole.objects.filter(
        user=user, course_id=course_id, role=CourseRole.Role.INSTRUCTOR
    ).exists()


def user_is_teacher(*, user) -> bool:
    """Staff, or an instructor of at least one course: who sees the teaching pages."""
    return user.is_authenticated and (user.is_staff or _instructed_course_ids(user).exists())


def course_list_for_instructor(*, user) -> QuerySet[Course]:
    """Courses the user may teach: every course for staff, their instructor roles else."""
    courses = Course.objects.order_by("order", "slug")
    return courses if user.is_staff else courses.filter(pk__in=_instructed_course_ids(user))


def user_can_manage_quiz(*, user, quiz: Quiz) -> bool:
    return user.is_staff or user_is_instructor(user=user, course_id=quiz.course_id)


def _enrolled_course_ids(user) -> QuerySet:
    return Enrolment.objects.filter(user=user).values("course_id")


def user_is_enrolled(*, user, course_id: int) -> bool:
    return Enrolment.objects.filter(user=user, course_id=course_id).exists()


def enrolled_course_ids(*, user) -> set[int]:
    return set(Enrolment.objects.filter(user=user).values_list("course_id", flat=True))


def enrolments_for_instructor(*, user, course: Course) -> QuerySet[Enrolment]:
    """The course's enrolments for its instructors and staff; DoesNotExist (404) for
    anyone else, as if the list were not there."""
    if not (user.is_staff or user_is_instructor(user=user, course_id=course.pk)):
        raise Enrolment.DoesNotExist
    return course.enrolments.select_related("user").order_by("user__username")


def learners_of_course(*, course_id: int):
    """Users enrolled in the course: the only learners its instructors' tables show."""
    return Enrolment.objects.filter(course_id=course_id).values("user_id")


# ----------------------------------------------------------------------------- quizzes


def _reachable(user) -> Q:
    """Quizzes a non-staff user may see: no course (staff-made, open to all signed-in
    users), a course they are enrolled in, or a course they instruct."""
    return (
        Q(course__isnull=True)
        | Q(course_id__in=_enrolled_course_ids(user))
        | Q(course_id__in=_instructed_course_ids(user))
    )


def quiz_list_for_user(*, user, now: datetime | None = None) -> QuerySet[Quiz]:
    """Quizzes the user can take (not yet closed for them: their extension's later close
    counts) in the courses they are enrolled in (or with no course), plus every quiz of
    the courses they instruct; staff see all. Adaptive lesson practice is reached
    through its lesson."""
    now = now or timezone.now()
    qs = (
        Quiz.objects.filter(adaptive=False)
        .select_related("course")
        .prefetch_related("slots", "lessons")
    )
    if user.is_staff:
        return qs
    extended = Extension.objects.filter(learner=user, closes_at__gt=now).values("quiz_id")
    takeable = (Q(closes_at__isnull=True) | Q(closes_at__gt=now) | Q(pk__in=extended)) & (
        Q(course__isnull=True) | Q(course_id__in=_enrolled_course_ids(user))
    )
    return qs.filter(takeable | Q(course_id__in=_instructed_course_ids(user)))


def quiz_get_for_user(*, user, pk: int) -> Quiz:
    """A (non-adaptive) quiz the user may see and start: enrolled in its course, its
    instructor, staff, or a quiz with no course. Its dates and attempt limit are the
    service's business. Raises Quiz.DoesNotExist (404) for anyone else."""
    qs = Quiz.objects.select_related("course").filter(adaptive=False)
    if not user.is_staff:
        qs = qs.filter(_reachable(user))
    return qs.get(pk=pk)


def quiz_get_for_instructor(*, user, pk: int) -> Quiz:
    """A quiz the user instructs (or any, for staff). Raises Quiz.DoesNotExist."""
    qs = Quiz.objects.select_related("course")
    if not user.is_staff:
        qs = qs.filter(course_id__in=_instructed_course_ids(user))
    return qs.get(pk=pk)


def extension_of(*, quiz: Quiz, learner) -> Extension | None:
    """The learner's extension on the quiz, if any: one query, none for a quiz with
    neither a time limit nor a close (an extension changes nothing there)."""
    if quiz.time_limit is None and quiz.closes_at is None:
        return None
    return Extension.objects.filter(quiz=quiz, learner=learner).first()


def extended_closes_for_user(*, user) -> dict[int, datetime]:
    """{quiz id: later close} of the user's extensions that move a close: one query,
    as small as the user's extensions. Readers pass it to Quiz.closes_at_for_learner."""
    if not user.is_authenticated:
        return {}
    return dict(
        Extension.objects.filter(learner=user, closes_at__isnull=False).values_list(
            "quiz_id", "closes_at"
        )
    )


def extensions_for_instructor(*, user, quiz: Quiz) -> QuerySet[Extension]:
    """The quiz's extensions, by learner id, for its instructors and staff; empty for
    anyone else (the views gate with quiz_get_for_instructor first)."""
    if not user_can_manage_quiz(user=user, quiz=quiz):
        return Extension.objects.none()
    return (
        Extension.objects.filter(quiz=quiz)
        .select_related("learner", "granted_by")
        .order_by("learner_id")
    )


# ---------------------------------------------------------------------------- attempts


def attempt_get_for_user(*, user, pk: int, write: bool = False) -> Attempt:
    """The attempt if the user may read it; with write=True only its own learner may,
    and only while they may still take the quiz (enrolled in its course, its instructor,
    staff, or a quiz with no course): a learner removed from a course keeps reading
    their attempt but can neither answer nor finish it.

    Raises Attempt.DoesNotExist otherwise, so another learner's attempt is a 404. The
    enrolment check is a subquery of the same query: writes cost no extra query.
    """
    qs = Attempt.objects.select_related("quiz", "learner")
    if write:
        qs = qs.filter(learner=user)
        if not user.is_staff:
            qs = qs.filter(
                Q(quiz__course__isnull=True)
                | Q(quiz__course_id__in=_enrolled_course_ids(user))
                | Q(quiz__course_id__in=_instructed_course_ids(user))
            )
    elif not user.is_staff:
        qs = qs.filter(Q(learner=user) | Q(quiz__course_id__in=_instructed_course_ids(user)))
    return qs.get(pk=pk)


def attempts_for_instructor(*, user, quiz: Quiz) -> QuerySet[Attempt]:
    """Every attempt on a quiz the user instructs; empty for anyone else."""
    if not user_can_manage_quiz(user=user, quiz=quiz):
        return Attempt.objects.none()
    return quiz.attempts.select_related("learner", "quiz").order_by("started_at", "id")


def attempt_list_for_user(*, user, quiz: Quiz) -> QuerySet[Attempt]:
    """All attempts for the quiz's instructors and staff, the user's own for learners."""
    if user_can_manage_quiz(user=user, quiz=quiz):
        return attempts_for_instructor(user=user, quiz=quiz)
    return quiz.attempts.filter(learner=user).select_related("learner", "quiz")


def question_get_for_attempt(*, attempt: Attempt, pk: int) -> Question:
    """A question of this attempt (the attempt was gated already). Raises DoesNotExist."""
    return Question.objects.select_related("slot").get(pk=pk, attempt=attempt)
