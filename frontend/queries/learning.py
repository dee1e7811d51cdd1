"""Mastery per lesson, the course and lesson pages, and the learner's dashboard."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count
from django.utils import timezone

from assess import selectors
from assess import skills as skill_map
from assess.mastery import bkt
from assess.models import Attempt, MasteryEvent, Response
from assess.policy import feedback_visible
from curricula import selectors as curricula_selectors
from curricula.models import Course, Lesson
from frontend import charts
from frontend.queries.common import lesson_skills, template_title

# ----------------------------------------------------------------------------- mastery


@dataclass(frozen=True)
class LessonMasteryRow:
    lesson: Lesson
    p_mastery: float | None  # None: the lesson has no practice problems
    started: bool
    mastered: bool


def _mastery_rows(lessons: Sequence[Lesson], skill_ps: dict[str, float]) -> list[LessonMasteryRow]:
    rows = []
    for lesson in lessons:
        skills = lesson_skills(lesson)
        p = bkt.lesson_mastery(skill_ps, skills) if skills else None
        rows.append(
            LessonMasteryRow(
                lesson=lesson,
                p_mastery=p,
                started=any(s in skill_ps for s in skills),
                mastered=p is not None and bkt.is_mastered(p),
            )
        )
    return rows


def lessons_mastery_for_user(*, user, lessons: Sequence[Lesson]) -> list[LessonMasteryRow]:
    """Every lesson with whether it was started: pages show an untouched lesson as
    "not started" rather than at the model's prior, which would read as progress."""
    skills = {s for lesson in lessons for s in lesson_skills(lesson)}
    skill_ps = (
        selectors.skill_ps_for_user(user=user, skills=skills) if user.is_authenticated else {}
    )
    return _mastery_rows(lessons, skill_ps)


def mastery_bars(rows: Iterable[LessonMasteryRow]) -> list[charts.Bar]:
    bars = []
    for row in rows:
        if row.p_mastery is None:
            continue
        if not row.started:
            bars.append(charts.Bar(row.lesson.title, None, "not started"))
        else:
            bars.append(charts.Bar(row.lesson.title, row.p_mastery, "mastered" * row.mastered))
    return bars


@dataclass(frozen=True)
class CoursePage:
    course: Course
    modules: list[tuple[object, list[LessonMasteryRow]]]
    chart: str


def course_page(*, user, slug: str) -> CoursePage:
    """The outline and the user's skills in a fixed number of reads, so a 30-lesson
    course costs what a 3-lesson one does."""
    course = curricula_selectors.course_get(slug=slug)
    modules = list(course.modules.all())
    lessons = [lesson for m in modules for lesson in m.lessons.all()]
    rows = {r.lesson.pk: r for r in lessons_mastery_for_user(user=user, lessons=lessons)}
    chart = charts.bar_chart(
        mastery_bars(rows[lesson.pk] for lesson in lessons),
        title=f"Mastery per lesson in {course.title}",
        desc="Estimated probability (0 to 1) that you have mastered each lesson; "
        "0.95 counts as mastered.",
        marker=bkt.MASTERED,
        marker_label="mastered 0.95",
        css_class="mastery",
    )
    return CoursePage(
        course=course,
        modules=[(m, [rows[lesson.pk] for lesson in m.lessons.all()]) for m in modules],
        chart=chart,
    )


# ------------------------------------------------------------------------------ lesson


@dataclass(frozen=True)
class ResponseRow:
    response: Response
    template_title: str
    part_label: str
    visible: bool


@dataclass(frozen=True)
class LessonPage:
    lesson: Lesson
    mastery: LessonMasteryRow
    templates: list[tuple[str, str]]
    recent: list[ResponseRow]


def lesson_page(*, user, slug: str, limit: int = 10) -> LessonPage:
    """The lesson, the user's mastery of it and their latest answers on its templates;
    correctness only where the answer's quiz policy shows it now."""
    lesson = curricula_selectors.lesson_get(slug=slug)
    slugs = [link.template_slug for link in lesson.template_links.all()]
    recent: list[ResponseRow] = []
    if user.is_authenticated and slugs:
        now = timezone.now()
        responses = (
            Response.objects.filter(attempt__learner=user, question__template_slug__in=slugs)
            .select_related("question", "attempt__quiz")
            .order_by("-created_at", "-id")[:limit]
        )
        for r in responses:
            part = r.question.part(r.part) or {}
            recent.append(
                ResponseRow(
                    response=r,
                    template_title=template_title(r.question.template_slug),
                    part_label=part.get("label") or r.part,
                    visible=feedback_visible(attempt=r.attempt, now=now),
                )
            )
    (mastery,) = lessons_mastery_for_user(user=user, lessons=[lesson])
    return LessonPage(
        lesson=lesson,
        mastery=mastery,
        templates=[(s, template_title(s)) for s in skill_map.known_templates(slugs)],
        recent=recent,
    )


# ---------------------------------------------------------------------------- dashboard


@dataclass(frozen=True)
class AttemptRow:
    attempt: Attempt
    visible: bool


@dataclass(frozen=True)
class Dashboard:
    mastery: list[selectors.LessonMastery]
    chart: str
    attempts: list[AttemptRow]


MAX_SERIES = 7


def dashboard_for_user(*, user) -> Dashboard:
    """History is replayed from MasteryEvent because SkillMastery keeps only the latest
    estimate; each point is the lesson's minimum over its skills, as bkt.lesson_mastery
    defines a lesson's mastery."""
    mastery = selectors.mastery_list_for_user(user=user)
    # Many lessons share a template; the ones practised from their own page come first.
    practised = dict(
        Response.objects.filter(attempt__learner=user, attempt__quiz__practice_lesson__isnull=False)
        .values_list("attempt__quiz__practice_lesson__slug")
        .annotate(n=Count("id"))
        .order_by()
    )
    shown = sorted(mastery, key=lambda m: (-practised.get(m.lesson, 0), -m.responses))
    shown = shown[:MAX_SERIES]
    lessons = {
        lesson.slug: lesson
        for lesson in Lesson.objects.filter(slug__in=[m.lesson for m in shown]).prefetch_related(
            "template_links"
        )
    }
    skills_of = {m.lesson: lesson_skills(lessons[m.lesson]) for m in shown if m.lesson in lessons}
    points: dict[str, list[tuple[datetime, float]]] = {slug: [] for slug in skills_of}
    skill_ps: dict[str, float] = {}
    events = MasteryEvent.objects.filter(learner=user).order_by("created_at", "id")
    for skill, p_after, at in events.values_list("skill", "p_after", "created_at").iterator():
        skill_ps[skill] = p_after
        for slug, skills in skills_of.items():
            if skill in skills:
                value = bkt.lesson_mastery(skill_ps, skills)
                series = points[slug]
                if series and series[-1][0] == at:
                    series[-1] = (at, value)  # one answer moves several skills at once
                else:
                    series.append((at, value))
    chart = charts.line_chart(
        [charts.Series(m.title, points[m.lesson]) for m in shown if m.lesson in points],
        title="Mastery per lesson over time",
        desc="Estimated mastery (0 to 1) of each lesson you practised, after each answer; "
        "the dashed line at 0.95 is mastered.",
        marker=bkt.MASTERED,
        marker_label="mastered 0.95",
        css_class="history",
    )
    now = timezone.now()
    attempts = (
        Attempt.objects.filter(learner=user)
        .select_related("quiz")
        .order_by("-started_at", "-id")[:50]
    )
    return Dashboard(
        mastery=mastery,
        chart=chart,
        attempts=[AttemptRow(a, feedback_visible(attempt=a, now=now)) for a in attempts],
    )
