"""Instructor pages: who teaches, item analysis, learners, template preview (progress:
frontend/queries/progress.py)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from django.core.exceptions import PermissionDenied
from django.db.models import Count, OuterRef, Subquery
from django.db.models.functions import Coalesce

from assess import selectors
from assess.models import Enrolment, Quiz
from assess.selectors.items import item_analysis_for_instructor
from curricula import selectors as curricula_selectors
from curricula.models import Course
from frontend import charts
from frontend.queries.common import (
    answer_text,
    template_title,
)
from lti.selectors import score_sync_counts
from problems.engine.variants import Variant


@dataclass(frozen=True)
class TeachIndex:
    courses: list[Course]
    quizzes: list[Quiz]
    writable: set[int]  # course ids whose templates the user writes (course-wide roles)


def teach_index(*, user) -> TeachIndex:
    if not selectors.user_is_teacher(user=user):
        raise PermissionDenied
    courses = list(selectors.course_list_for_instructor(user=user))
    quizzes = Quiz.objects.filter(adaptive=False).select_related("course")
    if not user.is_staff:
        quizzes = quizzes.filter(course__in=courses)
    # The attempts of the learners the user may see (an instructor scoped to an LMS
    # course: only its members'), counted per quiz in the same query.
    seen = (
        selectors.attempts_seen_by_instructor(user=user)
        .filter(quiz=OuterRef("pk"))
        .order_by()
        .values("quiz")
        .annotate(n=Count("pk"))
        .values("n")
    )
    quizzes = quizzes.annotate(n_attempts=Coalesce(Subquery(seen), 0)).order_by(
        "-created_at", "-id"
    )
    writable = selectors.course_wide_course_ids(user=user, among=courses)
    return TeachIndex(courses=courses, quizzes=list(quizzes), writable=writable)


@dataclass(frozen=True)
class ItemsPage:
    quiz: Quiz
    items: list
    titles: dict[str, str]
    attempts: int
    correct_chart: str
    discrimination_chart: str
    # The quiz's LMS grade passback by state (lti.selectors.score_sync_counts): the page
    # links to it when there is any.
    lms: dict[str, int] = field(default_factory=dict)


def items_page(*, user, pk: int) -> ItemsPage:
    """Item analysis of a quiz the user instructs (404 for anyone else), over the
    attempts of the learners they may see (selectors.attempts_for_instructor)."""
    quiz = selectors.quiz_get_for_instructor(user=user, pk=pk)
    analysis = item_analysis_for_instructor(user=user, quiz=quiz)
    items = analysis.items
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
        attempts=analysis.attempts,  # what is counted
        correct_chart=correct,
        discrimination_chart=discrimination,
        lms=score_sync_counts(user=user, quiz=quiz),
    )


@dataclass(frozen=True)
class LearnersPage:
    course: Course
    enrolments: list[Enrolment]


def course_learners(*, user, slug: str) -> LearnersPage:
    """The course's enrolments for its instructors and staff (404 for anyone else)."""
    course = curricula_selectors.course_get(slug=slug)
    rows = selectors.enrolments_for_instructor(user=user, course=course)
    return LearnersPage(course=course, enrolments=list(rows))


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
