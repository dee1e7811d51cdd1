"""Reads of the curriculum tables. Curricula are public, so no per-user gate applies."""

from __future__ import annotations

from django.db.models import Count, Prefetch, QuerySet

from curricula.coverage import LessonRow
from curricula.models import Course, Lesson, LessonTemplate, Module

_LINKS = Prefetch("template_links", queryset=LessonTemplate.objects.order_by("order"))


def course_list() -> QuerySet[Course]:
    """Courses with their sizes counted in the same query, for the catalogue page."""
    return Course.objects.annotate(
        module_count=Count("modules", distinct=True),
        lesson_count=Count("modules__lessons", distinct=True),
    ).order_by("order", "slug")


def course_get(*, slug: str) -> Course:
    """One course with its whole outline in four queries, however long the course is.

    Raises Course.DoesNotExist.
    """
    lessons = Lesson.objects.order_by("order").prefetch_related(_LINKS)
    modules = Module.objects.order_by("order").prefetch_related(Prefetch("lessons", lessons))
    return Course.objects.prefetch_related(Prefetch("modules", modules)).get(slug=slug)


def lesson_get(*, slug: str) -> Lesson:
    """One lesson with its module, course and templates. Raises Lesson.DoesNotExist."""
    return Lesson.objects.select_related("module__course").prefetch_related(_LINKS).get(slug=slug)


def lesson_coverage_rows() -> list[LessonRow]:
    """Every loaded lesson in teaching order, shaped for `curricula.coverage`."""
    lessons = (
        Lesson.objects.select_related("module__course")
        .prefetch_related(_LINKS)
        .order_by("module__course__order", "module__order", "order")
    )
    return [
        LessonRow(
            course=lesson.module.course.slug,
            module=lesson.module.slug,
            lesson=lesson.slug,
            status=lesson.status,
            templates=tuple(link.template_slug for link in lesson.template_links.all()),
        )
        for lesson in lessons
    ]
