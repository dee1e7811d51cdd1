"""Mastery as a learner (or their instructor) may read it.

BKT is global per skill: knowledge shown in one course is knowledge in another. What is
shown per course is restricted to the courses a learner is enrolled in, and every
figure comes with the evidence behind it (how many honest answers moved the skill).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Min

from assess import skills as skill_map
from assess.mastery import bkt
from assess.models import Enrolment, Response, SkillMastery
from curricula.models import Lesson


@dataclass(frozen=True)
class SkillRow:
    skill: str
    p_mastery: float
    mastered: bool
    evidence: int  # answers that updated this estimate


@dataclass(frozen=True)
class LessonMastery:
    course: str
    lesson: str
    title: str
    skills: list[SkillRow]  # every skill of the lesson; unseen ones at the prior, 0 evidence
    summary: bkt.LessonSummary

    @property
    def evidence(self) -> int:
        return sum(s.evidence for s in self.skills)

    @property
    def started(self) -> bool:
        return self.evidence > 0


@dataclass(frozen=True)
class Mastery:
    skills: list[SkillRow]  # every skill the learner has evidence on
    lessons: list[LessonMastery]  # lessons of the learner's enrolled courses


def skill_ps_for_user(*, user, skills: Iterable[str]) -> dict[str, float]:
    return dict(
        SkillMastery.objects.filter(learner=user, skill__in=list(skills)).values_list(
            "skill", "p_mastery"
        )
    )


def skill_rows_for_user(*, user) -> dict[str, SkillRow]:
    rows = SkillMastery.objects.filter(learner=user).order_by("skill")
    return {
        r.skill: SkillRow(r.skill, r.p_mastery, bkt.is_mastered(r.p_mastery), r.responses)
        for r in rows
    }


def lesson_masteries(
    *, lessons: Iterable[Lesson], rows: dict[str, SkillRow]
) -> list[LessonMastery]:
    """Lessons (with module__course and template_links loaded) that have skills."""
    prior = bkt.DEFAULT_PARAMS.p_init
    out = []
    for lesson in lessons:
        skills = skill_map.lesson_skills(link.template_slug for link in lesson.template_links.all())
        if not skills:
            continue
        skill_rows = [rows.get(s) or SkillRow(s, prior, False, 0) for s in skills]
        out.append(
            LessonMastery(
                course=lesson.module.course.slug,
                lesson=lesson.slug,
                title=lesson.title,
                skills=skill_rows,
                summary=bkt.lesson_summary({r.skill: r.p_mastery for r in skill_rows}, skills),
            )
        )
    return out


def mastery_for_user(*, user) -> Mastery:
    """Every skill with evidence, and every lesson of the courses the user is enrolled
    in; three queries however many lessons."""
    rows = skill_rows_for_user(user=user)
    lessons = (
        Lesson.objects.filter(
            module__course_id__in=Enrolment.objects.filter(user=user).values("course_id")
        )
        .select_related("module__course")
        .prefetch_related("template_links")
        .order_by("module__course__order", "module__order", "order")
    )
    return Mastery(
        skills=[r for r in rows.values() if r.evidence],
        lessons=lesson_masteries(lessons=lessons, rows=rows),
    )


def evidence_sequences() -> dict[str, dict[int, list[bool]]]:
    """{skill: {learner_id: [correct, ...]}}: every answer that was mastery evidence, in
    time order, for every skill of its template: exactly what the online updates saw,
    so the fitted parameters describe the same process. An all-learner read for the
    fitting command, not for any request."""
    # In the order the updates were applied (a held exam answer counts when it was
    # released, not when it was typed), then as stored.
    rows = (
        Response.objects.filter(evidence=True)
        .annotate(applied=Min("mastery_events__created_at"))
        .order_by("applied", "created_at", "id")
    )
    out: dict[str, dict[int, list[bool]]] = {}
    fields = ("attempt__learner_id", "question__template_slug", "correct")
    for learner_id, slug, correct in rows.values_list(*fields).iterator():
        for skill in skill_map.template_skills(slug):
            out.setdefault(skill, {}).setdefault(learner_id, []).append(bool(correct))
    return out
