"""The course and lesson pages, with the reader's mastery and enrolment.

A lesson's mastery is shown as a learner can read it (selectors.LessonMastery): how many
of its skills are mastered, which skill holds it back and at what estimate, and the
answers behind each skill. A lesson whose questions the reader never answered says "not
started" rather
than showing the model's prior, which would read as progress.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from django.db.models import Max
from django.utils import timezone

from assess import selectors
from assess import skills as skill_map
from assess.models import Attempt, Response
from assess.policy import grades_visible
from curricula import selectors as curricula_selectors
from curricula.models import Course, Lesson, Module
from frontend import charts
from frontend.queries.common import template_title
from problems.engine.examples import example  # one fixed variant per template
from problems.engine.misconception_names import misconception_name
from problems.engine.render import render_markdown

# ----------------------------------------------------------------------------- mastery


@dataclass(frozen=True)
class LessonRow:
    lesson: Lesson
    mastery: selectors.LessonMastery | None  # None: the lesson has no practice problems


def lesson_rows_for_user(*, user, lessons: Sequence[Lesson]) -> list[LessonRow]:
    """Every lesson with the reader's mastery of it: one query for all their skills, one
    for their answers per template (what started a lesson).
    Lessons need module__course and template_links loaded (course_get, lesson_get)."""
    rows, answered = {}, {}
    if user.is_authenticated:
        rows = selectors.skill_rows_for_user(user=user)
        answered = selectors.answers_by_template(learner_ids=[user.pk]).get(user.pk, {})
    masteries = selectors.lesson_masteries(lessons=lessons, rows=rows, answered=answered)
    by_slug = {m.lesson: m for m in masteries}
    return [LessonRow(lesson, by_slug.get(lesson.slug)) for lesson in lessons]


def mastery_bars(rows: Iterable[LessonRow]) -> list[charts.Bar]:
    """The share of each lesson's skills mastered; "not started" rather than a zero, and
    "known from other lessons" where only shared skills moved it."""
    bars = []
    for row in rows:
        m = row.mastery
        if m is None:
            continue
        if m.carried:
            note = f"known from other lessons ({m.summary.mastered} of {m.summary.skills} skills)"
            bars.append(charts.Bar(row.lesson.title, None, note))
        elif not m.started:
            bars.append(charts.Bar(row.lesson.title, None, "not started"))
        else:
            note = f"({m.summary.mastered} of {m.summary.skills} skills)"
            bars.append(charts.Bar(row.lesson.title, m.summary.share, note))
    return bars


@dataclass(frozen=True)
class EnrolmentState:
    """The reader and the course: enrolled, may enrol themselves, or neither."""

    enrolled: bool
    self_enrol: bool


def _enrolment(user, course: Course) -> EnrolmentState:
    enrolled = user.is_authenticated and selectors.user_is_enrolled(user=user, course_id=course.pk)
    return EnrolmentState(enrolled=enrolled, self_enrol=course.self_enrol)


@dataclass(frozen=True)
class CoursePage:
    course: Course
    modules: list[tuple[Module, list[LessonRow]]]
    chart: str
    enrolment: EnrolmentState


def course_page(*, user, slug: str) -> CoursePage:
    """The outline, the user's skills and enrolment in a fixed number of reads, so a
    30-lesson course costs what a 3-lesson one does."""
    course = curricula_selectors.course_get(slug=slug)
    modules = list(course.modules.all())
    lessons = [lesson for m in modules for lesson in m.lessons.all()]
    rows = {r.lesson.pk: r for r in lesson_rows_for_user(user=user, lessons=lessons)}
    bars = mastery_bars(rows[lesson.pk] for lesson in lessons)
    drawing = {
        "title": f"Skills mastered per lesson in {course.title}",
        "desc": "For each lesson you answered questions of, the share of its skills whose "
        "mastery estimate has reached 95%; lessons you have not answered say not started.",
        "fmt": "{:.0%}",
    }
    chart = charts.responsive(
        charts.bar_chart(bars, css_class="mastery", **drawing),
        charts.bar_chart(bars, css_class="mastery-phone", width=charts.PHONE_WIDTH, **drawing),
    )
    return CoursePage(
        course=course,
        modules=[(m, [rows[lesson.pk] for lesson in m.lessons.all()]) for m in modules],
        chart=chart,
        enrolment=_enrolment(user, course),
    )


# ------------------------------------------------------------------------------ lesson


@dataclass(frozen=True)
class ResponseRow:
    response: Response
    template_title: str
    part_label: str
    visible: bool
    misconception: str  # the mistake named, in words ("" for none, or not visible)


@dataclass(frozen=True)
class WorkedExample:
    """One variant shown with its solution for reading: never a question, never graded."""

    template_slug: str
    template_title: str
    statement_html: str
    solution_html: str


@lru_cache(maxsize=256)
def worked_example(template_slug: str) -> WorkedExample:
    """The example of one template: pure (no database), so cached per process."""
    variant = example(template_slug)
    return WorkedExample(
        template_slug=template_slug,
        template_title=variant.template.title,
        statement_html=variant.statement_html(),
        solution_html=variant.solution_html(),
    )


@dataclass(frozen=True)
class LessonPage:
    lesson: Lesson
    key_ideas_html: str  # the data file's key ideas, Markdown with MathML
    example: WorkedExample | None  # of the lesson's first template; None without one
    mastery: selectors.LessonMastery | None
    templates: list[tuple[str, str]]
    recent: list[ResponseRow]
    enrolment: EnrolmentState
    can_practise: bool  # enrolled, self-enrolment allowed, or teaches the course
    session: Attempt | None  # the reader's open practice attempt here, with `drawn`


def _recent(user, slugs: list[str], limit: int) -> list[ResponseRow]:
    """The user's latest answers on these templates; correctness only where the
    answer's own attempt lets its grades show now (assess.policy)."""
    now = timezone.now()
    responses = (
        Response.objects.filter(attempt__learner=user, question__template_slug__in=slugs)
        .select_related("question", "attempt__quiz")
        .order_by("-created_at", "-id")[:limit]
    )
    rows = []
    for r in responses:
        part = r.question.part(r.part) or {}
        visible = grades_visible(attempt=r.attempt, now=now)
        rows.append(
            ResponseRow(
                response=r,
                template_title=template_title(r.question.template_slug),
                part_label=part.get("label") or r.part,
                visible=visible,
                misconception=misconception_name(r.misconception) if visible else "",
            )
        )
    return rows


def lesson_page(*, user, slug: str, limit: int = 10) -> LessonPage:
    """The lesson, the user's mastery of each of its skills with the answers behind it,
    and their latest answers on its templates."""
    lesson = curricula_selectors.lesson_get(slug=slug)
    slugs = [link.template_slug for link in lesson.template_links.all()]
    recent = _recent(user, slugs, limit) if user.is_authenticated and slugs else []
    (row,) = lesson_rows_for_user(user=user, lessons=[lesson])
    course = lesson.module.course
    enrolment = _enrolment(user, course)
    can_practise = user.is_authenticated and (
        enrolment.enrolled
        or course.self_enrol
        or user.is_staff
        or selectors.user_is_instructor(user=user, course_id=course.pk)
    )
    session = None
    if can_practise:
        session = (
            Attempt.objects.filter(
                quiz__practice_lesson=lesson, learner=user, status=Attempt.Status.OPEN
            )
            .annotate(drawn=Max("questions__order"))
            .first()
        )
    known = skill_map.known_templates(slugs)
    return LessonPage(
        lesson=lesson,
        key_ideas_html=render_markdown(lesson.key_ideas) if lesson.key_ideas else "",
        example=worked_example(known[0]) if known else None,
        mastery=row.mastery,
        templates=[(s, template_title(s)) for s in known],
        recent=recent,
        enrolment=enrolment,
        can_practise=can_practise,
        session=session,
    )
