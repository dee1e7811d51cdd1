"""Instructor pages: who teaches, item analysis, progress, template preview."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.core.exceptions import PermissionDenied
from django.db.models import Count

from assess import selectors
from assess.analysis import item_analysis
from assess.mastery import bkt
from assess.models import Attempt, Quiz, SkillMastery
from curricula import selectors as curricula_selectors
from curricula.models import Course, Lesson
from frontend import charts
from frontend.queries.common import answer_text, lesson_skills, template_title
from problems.engine.variants import Variant


@dataclass(frozen=True)
class TeachIndex:
    courses: list[Course]
    quizzes: list[Quiz]


def teach_index(*, user) -> TeachIndex:
    if not selectors.user_is_teacher(user=user):
        raise PermissionDenied
    courses = list(selectors.course_list_for_instructor(user=user))
    quizzes = Quiz.objects.filter(adaptive=False).select_related("course")
    if not user.is_staff:
        quizzes = quizzes.filter(course__in=courses)
    quizzes = quizzes.annotate(n_attempts=Count("attempts")).order_by("-created_at", "-id")
    return TeachIndex(courses=courses, quizzes=list(quizzes))


@dataclass(frozen=True)
class ItemsPage:
    quiz: Quiz
    items: list
    titles: dict[str, str]
    attempts: int
    correct_chart: str
    discrimination_chart: str


def items_page(*, user, pk: int) -> ItemsPage:
    """Item analysis of a quiz the user instructs (404 for anyone else)."""
    quiz = selectors.quiz_get_for_instructor(user=user, pk=pk)
    items = item_analysis(quiz=quiz)
    titles = {i.template: template_title(i.template) for i in items}
    correct = charts.bar_chart(
        [charts.Bar(titles[i.template], i.proportion_correct, "") for i in items],
        title="Proportion correct per template",
        desc="Share of all responses to each template that were correct, 0 to 1.",
        css_class="correct",
    )
    discrimination = charts.bar_chart(
        [charts.Bar(titles[i.template], i.discrimination, "") for i in items],
        title="Discrimination per template",
        desc="Point-biserial correlation of getting the item right with the attempt score, "
        "-1 to 1; below 0.2 the item separates strong and weak learners poorly.",
        lo=-1.0,
        hi=1.0,
        marker=0.2,
        marker_label="0.2",
        css_class="discrimination",
    )
    return ItemsPage(
        quiz=quiz,
        items=items,
        titles=titles,
        attempts=quiz.attempts.count(),
        correct_chart=correct,
        discrimination_chart=discrimination,
    )


@dataclass(frozen=True)
class ProgressTable:
    course: Course
    lessons: list[Lesson]
    rows: list[tuple[str, list[float | None]]]  # username, mastery per lesson


def course_progress(*, user, slug: str) -> ProgressTable:
    """Per learner, per lesson mastery on a course the user instructs (404 otherwise).

    The learners of a course are those with an attempt on one of its quizzes, lesson
    practice included: there is no enrolment table yet.
    """
    course = curricula_selectors.course_get(slug=slug)
    if not (user.is_staff or selectors.user_is_instructor(user=user, course_id=course.pk)):
        raise Course.DoesNotExist
    lessons = [
        lesson for m in course.modules.all() for lesson in m.lessons.all() if lesson_skills(lesson)
    ]
    skills = {s for lesson in lessons for s in lesson_skills(lesson)}
    learner_ids = Attempt.objects.filter(quiz__course=course).values("learner_id")
    per_learner: dict[str, dict[str, float]] = {}
    rows = SkillMastery.objects.filter(learner_id__in=learner_ids, skill__in=skills)
    for username, skill, p in rows.values_list("learner__username", "skill", "p_mastery"):
        per_learner.setdefault(username, {})[skill] = p
    table = []
    for username in sorted(per_learner):
        ps = per_learner[username]
        table.append(
            (
                username,
                [
                    bkt.lesson_mastery(ps, lesson_skills(lesson))
                    if any(s in ps for s in lesson_skills(lesson))
                    else None
                    for lesson in lessons
                ],
            )
        )
    return ProgressTable(course=course, lessons=lessons, rows=table)


@dataclass(frozen=True)
class Preview:
    slug: str
    title: str
    statement_html: str
    answers: list[tuple[str, str]]  # label, correct value with unit
    solution_html: str


def template_preview(*, slug: str) -> Preview:
    """A fresh variant for the quiz builder, answers included: instructors only (the
    view checks). Its seed is drawn here and never shown."""
    variant = Variant.from_seed(slug, secrets.randbelow(2**62))
    parts = [
        {"kind": str(p.kind), "value": p.value, "unit": p.unit, "label": p.label or p.name}
        for p in variant.parts.values()
    ]
    return Preview(
        slug=slug,
        title=variant.template.title,
        statement_html=variant.statement_html(),
        answers=[(p["label"], answer_text(p)) for p in parts],
        solution_html=variant.solution_html(),
    )
