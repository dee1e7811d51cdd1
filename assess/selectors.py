"""Reads on a user's behalf. These are the only gate to another learner's data.

A user who may not see an object gets DoesNotExist (the API's 404), never a hint that it
exists. Learners see their own attempts; instructors (CourseRole) see attempts on their
courses' quizzes; staff see everything.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from assess import skills as skill_map
from assess.mastery import bkt
from assess.models import Attempt, CourseRole, Question, Quiz, Response, SkillMastery
from assess.policy import feedback_visible
from assess.scoring import AttemptScore, attempt_score
from curricula.models import Course, Lesson, LessonTemplate
from problems.engine.variants import ParamError, Variant


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


# ----------------------------------------------------------------------------- quizzes


def quiz_list_for_user(*, user, now: datetime | None = None) -> QuerySet[Quiz]:
    """Quizzes the user can take (not yet closed), plus every quiz of the courses they
    instruct; staff see all. Adaptive lesson practice is reached through its lesson."""
    now = now or timezone.now()
    qs = (
        Quiz.objects.filter(adaptive=False)
        .select_related("course")
        .prefetch_related("slots", "lessons")
    )
    if user.is_staff:
        return qs
    takeable = Q(closes_at__isnull=True) | Q(closes_at__gt=now)
    return qs.filter(takeable | Q(course_id__in=_instructed_course_ids(user)))


def quiz_get_for_user(*, user, pk: int) -> Quiz:
    """Any signed-in user may see and start a (non-adaptive) quiz; its dates and attempt
    limit are the service's business. Raises Quiz.DoesNotExist."""
    return Quiz.objects.select_related("course").get(pk=pk, adaptive=False)


def quiz_get_for_instructor(*, user, pk: int) -> Quiz:
    """A quiz the user instructs (or any, for staff). Raises Quiz.DoesNotExist."""
    qs = Quiz.objects.select_related("course")
    if not user.is_staff:
        qs = qs.filter(course_id__in=_instructed_course_ids(user))
    return qs.get(pk=pk)


# ---------------------------------------------------------------------------- attempts


def attempt_get_for_user(*, user, pk: int, write: bool = False) -> Attempt:
    """The attempt if the user may read it; with write=True only its own learner may.

    Raises Attempt.DoesNotExist otherwise, so another learner's attempt is a 404.
    """
    qs = Attempt.objects.select_related("quiz", "learner")
    if write:
        qs = qs.filter(learner=user)
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


# ------------------------------------------------------------------------------ review


@dataclass(frozen=True)
class QuestionReview:
    question: Question
    responses: list[Response]
    score: float
    solution_html: str | None


@dataclass(frozen=True)
class AttemptReview:
    attempt: Attempt
    visible: bool
    score: AttemptScore
    questions: list[QuestionReview]

    @property
    def passed(self) -> bool:
        return self.score.score >= self.attempt.quiz.pass_mark


def _solution_html(question: Question) -> str | None:
    try:
        return Variant.from_params(question.template_slug, question.params).solution_html()
    except (ParamError, KeyError):
        return None


def attempt_review(*, user, attempt: Attempt, now: datetime | None = None) -> AttemptReview:
    """The attempt as its reader may see it. `attempt` must come from
    attempt_get_for_user. Three queries however many questions there are."""
    now = now or timezone.now()
    visible = attempt.learner_id != user.pk or feedback_visible(attempt=attempt, now=now)
    questions = list(
        attempt.questions.filter(active=True).select_related("slot").order_by("order", "id")
    )
    responses = list(attempt.responses.filter(question__active=True).order_by("created_at", "id"))
    score = attempt_score(questions, responses)
    by_question: dict[int, list[Response]] = {}
    for r in responses:
        by_question.setdefault(r.question_id, []).append(r)
    return AttemptReview(
        attempt=attempt,
        visible=visible,
        score=score,
        questions=[
            QuestionReview(
                question=q,
                responses=by_question.get(q.id, []),
                score=score.per_question[q.id],
                solution_html=_solution_html(q) if visible else None,
            )
            for q in questions
        ],
    )


# ----------------------------------------------------------------------------- mastery


@dataclass(frozen=True)
class LessonMastery:
    lesson: str
    title: str
    p_mastery: float
    mastered: bool
    responses: int


def skill_ps_for_user(*, user, skills) -> dict[str, float]:
    return dict(
        SkillMastery.objects.filter(learner=user, skill__in=list(skills)).values_list(
            "skill", "p_mastery"
        )
    )


def mastery_list_for_user(*, user) -> list[LessonMastery]:
    """Mastery of every lesson whose templates the user has answered; four queries."""
    per_template = dict(
        Response.objects.filter(attempt__learner=user)
        .values_list("question__template_slug")
        .annotate(n=Count("id"))
        .order_by()
    )
    if not per_template:
        return []
    lesson_ids = LessonTemplate.objects.filter(template_slug__in=list(per_template)).values(
        "lesson_id"
    )
    lessons = (
        Lesson.objects.filter(pk__in=lesson_ids)
        .prefetch_related("template_links")
        .order_by("module__course__order", "module__order", "order")
    )
    skill_ps = dict(SkillMastery.objects.filter(learner=user).values_list("skill", "p_mastery"))
    rows = []
    for lesson in lessons:
        slugs = [link.template_slug for link in lesson.template_links.all()]
        skills = skill_map.lesson_skills(slugs)
        if not skills:
            continue
        p = bkt.lesson_mastery(skill_ps, skills, bkt.DEFAULT_PARAMS)
        rows.append(
            LessonMastery(
                lesson=lesson.slug,
                title=lesson.title,
                p_mastery=p,
                mastered=bkt.is_mastered(p),
                responses=sum(per_template.get(slug, 0) for slug in set(slugs)),
            )
        )
    return rows


def first_try_sequences() -> dict[str, dict[int, list[bool]]]:
    """{skill: {learner_id: [correct, ...]}}: each learner's first try at each part, in
    time order, for every skill of the part's template. Later tries follow feedback on
    the first, so they are not independent evidence; BKT fitting reads first tries only.
    An all-learner read for the fitting command, not for any request.
    """
    rows = Response.objects.filter(valid=True).order_by("created_at", "id")
    seen: set[tuple[int, str]] = set()
    out: dict[str, dict[int, list[bool]]] = {}
    fields = ("attempt__learner_id", "question_id", "part", "question__template_slug", "correct")
    for learner_id, question_id, part, slug, correct in rows.values_list(*fields).iterator():
        if (question_id, part) in seen:
            continue
        seen.add((question_id, part))
        for skill in skill_map.template_skills(slug):
            out.setdefault(skill, {}).setdefault(learner_id, []).append(bool(correct))
    return out
