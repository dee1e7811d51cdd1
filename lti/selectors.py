"""Reads for the LTI pages."""

from __future__ import annotations

from django.db.models import Q, QuerySet, Sum

from assess.models import Quiz
from assess.selectors.access import course_list_for_instructor


def linkable_quizzes(*, user) -> QuerySet[Quiz]:
    """Quizzes the user may place in an LMS course by deep linking: those of the courses
    they instruct (every course for staff) and the staff-made ones with no course (open
    to every signed-in user anyway). Each carries `total_points`, the line item's
    scoreMaximum, which must be above zero: a quiz without questions is left out.
    Adaptive lesson practice is reached through its lesson, never linked."""
    return (
        Quiz.objects.filter(adaptive=False)
        .filter(Q(course__in=course_list_for_instructor(user=user)) | Q(course__isnull=True))
        .annotate(total_points=Sum("slots__points"))
        .filter(total_points__gt=0)
        .select_related("course")
        .order_by("course__order", "course__slug", "title", "pk")
    )


def instructs_a_course(*, user) -> bool:
    return course_list_for_instructor(user=user).exists()
