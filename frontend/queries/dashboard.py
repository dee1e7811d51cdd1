"""The learner's dashboard: the courses they are enrolled in, their skills over time,
their attempts.

BKT tracks skills, not lessons, so the history chart plots per-skill estimates after
each answer that counted as evidence, for the skills with the most evidence. A lesson's
minimum over its skills, plotted over time, sat at the prior for as long as one skill
was unpractised and could not say which skill moved; the lesson tables say that
instead (share mastered, weakest skill).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from assess import selectors
from assess.mastery import bkt
from assess.models import Attempt, MasteryEvent
from assess.policy import grades_visible
from curricula.models import Course
from frontend import charts
from problems.engine.skill_names import skill_name

MAX_SERIES = len(charts.PALETTE)  # one colour per skill line


@dataclass(frozen=True)
class CourseMastery:
    course: Course
    lessons: list[selectors.LessonMastery]

    @property
    def skill_rows(self) -> list[selectors.SkillRow]:
        """Each skill of the course's lessons once, in lesson order (unseen ones at the
        prior, with no evidence)."""
        seen: dict[str, selectors.SkillRow] = {}
        for lm in self.lessons:
            for row in lm.skills:
                seen.setdefault(row.skill, row)
        return list(seen.values())

    @property
    def practised(self) -> list[selectors.SkillRow]:
        """The skills with evidence, weakest first: what to work on reads first."""
        rows = [r for r in self.skill_rows if r.evidence]
        return sorted(rows, key=lambda r: (r.mastered, r.p_mastery, r.skill))

    @property
    def not_started(self) -> list[str]:
        return [r.skill for r in self.skill_rows if not r.evidence]

    @property
    def skills_mastered(self) -> int:
        return sum(r.mastered for r in self.skill_rows)

    @property
    def lessons_started(self) -> int:
        return sum(lm.started for lm in self.lessons)


@dataclass(frozen=True)
class AttemptRow:
    attempt: Attempt
    visible: bool


@dataclass(frozen=True)
class Dashboard:
    courses: list[CourseMastery]  # the courses the learner is enrolled in, only
    skills: list[selectors.SkillRow]  # every skill with evidence, most evidence first
    charted: list[str]  # the skills the chart plots
    chart: str
    attempts: list[AttemptRow]


def skill_history(
    events: list[tuple[str, float, datetime]], skills: list[str]
) -> list[charts.Series]:
    """One series per skill from (skill, p_after, at) in time order. Answers released
    together (an exam's, at its finish) share a time: the last estimate stands."""
    points: dict[str, list[tuple[datetime, float]]] = {s: [] for s in skills}
    for skill, p_after, at in events:
        series = points.get(skill)
        if series is None:
            continue
        if series and series[-1][0] == at:
            series[-1] = (at, p_after)
        else:
            series.append((at, p_after))
    return [charts.Series(skill_name(s), points[s]) for s in skills]


def dashboard_for_user(*, user) -> Dashboard:
    """A fixed number of reads however much the learner has practised."""
    mastery = selectors.mastery_for_user(user=user)
    courses = list(Course.objects.filter(enrolments__user=user).order_by("order", "slug"))
    by_course: dict[str, list[selectors.LessonMastery]] = {}
    for lm in mastery.lessons:
        by_course.setdefault(lm.course, []).append(lm)
    skills = sorted(mastery.skills, key=lambda s: (-s.evidence, s.skill))
    charted = [s.skill for s in skills[:MAX_SERIES]]
    events = MasteryEvent.objects.filter(learner=user, skill__in=charted).order_by(
        "created_at", "id"
    )
    history = skill_history(list(events.values_list("skill", "p_after", "created_at")), charted)
    drawing = {
        "title": "Skill estimates over time",
        "desc": "Estimated chance (0 to 100%) that you know each of your most-practised "
        "skills, after each answer that counted as evidence; the dashed line at 95% "
        "is mastered.",
        "marker": bkt.MASTERED,
        "marker_label": "mastered 95%",
        "fmt": "{:.0%}",
    }
    chart = charts.responsive(
        charts.line_chart(history, css_class="history", **drawing),
        charts.line_chart(history, css_class="history-phone", width=charts.PHONE_WIDTH, **drawing),
    )
    now = timezone.now()
    attempts = (
        Attempt.objects.filter(learner=user)
        .select_related("quiz")
        .order_by("-started_at", "-id")[:50]
    )
    return Dashboard(
        courses=[CourseMastery(c, by_course.get(c.slug, [])) for c in courses],
        skills=skills,
        charted=charted,
        chart=chart,
        attempts=[AttemptRow(a, grades_visible(attempt=a, now=now)) for a in attempts],
    )
