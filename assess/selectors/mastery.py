"""Mastery as a learner (or their instructor) may read it.

BKT is global per skill: knowledge shown in one course is knowledge in another. What is
shown per course is restricted to the courses a learner is enrolled in, and every
figure comes with the evidence behind it (how many honest answers moved the skill).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import repeat

import numpy as np
from django.db.models import Count, Min, OuterRef, Subquery, Sum
from django.db.models.functions import Coalesce

from assess import skills as skill_map
from assess.mastery import bkt
from assess.models import Enrolment, Question, Response, SkillMastery
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
    # The learner's own answers to this lesson's questions (its templates), wherever they
    # were asked: practice here, a quiz, an exam. Not the skills' evidence, which answers
    # in other lessons that share a skill also feed.
    answers: int = 0

    @property
    def evidence(self) -> int:
        """Answers behind the lesson's skills, this lesson's or any other's (the API's
        figure)."""
        return sum(s.evidence for s in self.skills)

    @property
    def started(self) -> bool:
        """The learner answered one of this lesson's own questions."""
        return self.answers > 0

    @property
    def carried(self) -> bool:
        """Not started here, yet some skill of it has evidence from other lessons: shown
        apart, as known from other lessons, never as progress in this one."""
        return not self.started and self.evidence > 0


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


def answers_by_template(*, learner_ids: Iterable[int]) -> dict[int, dict[str, int]]:
    """{learner_id: {template_slug: answers}}: each learner's own answers per template,
    in one query, for whether they started a lesson (LessonMastery.answers). Driven from
    the learners' questions, each counting its answers on the (question, part) index:
    joining every answer to its question instead took 390 ms for 50 learners with
    130,000 answers, this 40 ms (issue 43)."""
    answers = (
        Response.objects.filter(question_id=OuterRef("pk"))
        .order_by()
        .values("question_id")
        .annotate(n=Count("*"))
        .values("n")
    )
    rows = (
        Question.objects.filter(attempt__learner_id__in=list(learner_ids))
        .values_list("attempt__learner_id", "template_slug")
        .annotate(n=Sum(Coalesce(Subquery(answers), 0)))
        .order_by()
    )
    out: dict[int, dict[str, int]] = {}
    for learner_id, slug, n in rows:
        if n:
            out.setdefault(learner_id, {})[slug] = n
    return out


@dataclass(frozen=True)
class LessonShape:
    """What a lesson's mastery needs that is the same for every learner: computed once
    for a table of thousands of learners rather than once per learner (the progress
    CSV spent two thirds of its time re-deriving it, issue 43)."""

    course: str
    lesson: str
    title: str
    slugs: tuple[str, ...]  # its templates, each once
    skills: tuple[str, ...]
    unseen: tuple[SkillRow, ...]  # each skill at the prior, no evidence


def lesson_shapes(lessons: Iterable[Lesson]) -> list[LessonShape]:
    """The lessons (with module__course and template_links loaded) that have skills."""
    prior = bkt.DEFAULT_PARAMS.p_init
    shapes = []
    for lesson in lessons:
        slugs = [link.template_slug for link in lesson.template_links.all()]
        skills = skill_map.lesson_skills(slugs)
        if skills:
            shapes.append(
                LessonShape(
                    course=lesson.module.course.slug,
                    lesson=lesson.slug,
                    title=lesson.title,
                    slugs=tuple(dict.fromkeys(slugs)),
                    skills=skills,
                    unseen=tuple(SkillRow(s, prior, False, 0) for s in skills),
                )
            )
    return shapes


def masteries_of(
    shapes: Iterable[LessonShape],
    rows: dict[str, SkillRow],
    answered: dict[str, int] | None = None,
) -> list[LessonMastery]:
    """One learner's mastery of each lesson: their skill `rows`, and `answered`
    ({template_slug: answers}, answers_by_template) for which lessons they started
    (without it no lesson counts as started). The progress CSV, which needs two figures
    a lesson for thousands of learners, has lesson_figures."""
    answered = answered or {}
    out: list[LessonMastery] = []
    for shape in shapes:
        answers = sum(answered.get(slug, 0) for slug in shape.slugs)
        skill_rows = [rows.get(r.skill) or r for r in shape.unseen]
        out.append(
            LessonMastery(
                course=shape.course,
                lesson=shape.lesson,
                title=shape.title,
                skills=skill_rows,
                summary=bkt.summary_of(shape.skills, [r.p_mastery for r in skill_rows]),
                answers=answers,
            )
        )
    return out


@dataclass(frozen=True)
class LessonFigures:
    """One lesson's figures for each learner of a table, as arrays in the learners'
    order: what the progress CSV shows in its two columns a lesson."""

    started: np.ndarray  # bool: answered one of the lesson's templates
    share: np.ndarray  # of its skills mastered
    weakest: np.ndarray  # the weakest skill's estimate (the prior where unseen)
    weakest_seen: np.ndarray  # bool: that skill has answers (else its figure is the prior)


def _cells(row: dict, pks: Sequence, col: dict, keys: Sequence):
    """The (row, column) of each (pk, key) pair whose pk and key have one, and which
    pairs those are: looked up in C (map over dict.get) rather than a Python loop, 56,000
    pairs a CSV of 5,743 learners."""
    at = np.fromiter(map(row.get, pks, repeat(-1)), np.intp, len(pks))
    j = np.fromiter(map(col.get, keys, repeat(-1)), np.intp, len(keys))
    kept = (at >= 0) & (j >= 0)
    return at[kept], j[kept], kept


def lesson_figures(
    shapes: Sequence[LessonShape],
    learners: Sequence[int],
    estimates: Sequence[tuple[int, str, float, int]],
    started: Sequence[tuple[int, str]],
) -> list[LessonFigures]:
    """Each lesson's figures for these learners at once, from their skill rows
    ((learner, skill, estimate, answers), learner_rows.estimate_rows) and the templates
    they answered ((learner, template), learner_rows.started_rows): masteries_of's
    summary and started, and frontend's weakest_estimate, as (learners x skills) arrays
    rather than a LessonMastery, its skill rows and its summary a learner and lesson
    (which took half the CSV's 1.9 s for 5,743 learners, issue 43). A test holds the
    two ways to the same figures. Rows of other learners, skills or templates are left
    out."""
    row = {pk: i for i, pk in enumerate(learners)}
    col = {s: j for j, s in enumerate(dict.fromkeys(s for x in shapes for s in x.skills))}
    tcol = {t: j for j, t in enumerate(dict.fromkeys(t for x in shapes for t in x.slugs))}
    ps = np.full((len(row), len(col)), bkt.DEFAULT_PARAMS.p_init)  # as lesson_shapes' unseen
    answers = np.zeros((len(row), len(col)), dtype=np.int64)
    if estimates:
        pks, skills, p, n = zip(*estimates, strict=True)
        at, j, kept = _cells(row, pks, col, skills)
        ps[at, j], answers[at, j] = np.asarray(p)[kept], np.asarray(n)[kept]
    began = np.zeros((len(row), len(tcol)), dtype=bool)
    if started:
        pks, slugs = zip(*started, strict=True)
        at, j, _ = _cells(row, pks, tcol, slugs)
        began[at, j] = True
    everyone = np.arange(len(row))
    out = []
    for shape in shapes:
        cols = [col[s] for s in shape.skills]
        mine = ps[:, cols]
        mastered, weakest = bkt.tally_rows(mine)
        out.append(
            LessonFigures(
                started=began[:, [tcol[t] for t in shape.slugs]].any(axis=1),
                share=mastered / len(cols),
                weakest=mine[everyone, weakest],
                weakest_seen=answers[:, cols][everyone, weakest] > 0,
            )
        )
    return out


def lesson_masteries(
    *,
    lessons: Iterable[Lesson],
    rows: dict[str, SkillRow],
    answered: dict[str, int] | None = None,
) -> list[LessonMastery]:
    """Lessons (with module__course and template_links loaded) that have skills, for
    one learner (masteries_of, for many, takes the shapes computed once)."""
    return masteries_of(lesson_shapes(lessons), rows, answered)


def mastery_for_user(*, user) -> Mastery:
    """Every skill with evidence, and every lesson of the courses the user is enrolled
    in; four queries however many lessons."""
    rows = skill_rows_for_user(user=user)
    answered = answers_by_template(learner_ids=[user.pk]).get(user.pk, {})
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
        lessons=lesson_masteries(lessons=lessons, rows=rows, answered=answered),
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
