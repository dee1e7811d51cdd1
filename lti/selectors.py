"""Reads for the LTI pages."""

from __future__ import annotations

from django.db.models import Case, Count, IntegerField, Q, QuerySet, Sum, Value, When
from django.db.models.functions import Concat, Lower, Trim

from assess.models import Quiz
from assess.selectors.access import course_list_for_instructor, lti_context_filter_for_instructor
from curricula.models import Course
from lti.models import DeploymentCourse, DeploymentQuiz, ScoreSync

# The instructor's order of a quiz's LMS scores: what needs attention first.
_STATE_ORDER = (ScoreSync.State.FAILED, ScoreSync.State.PENDING, ScoreSync.State.SENT)


def deployment_may_launch(*, deployment, quiz: Quiz) -> bool:
    """The one rule of what an LMS deployment may open: a quiz of a course staff
    authorised it for (DeploymentCourse), or a quiz with no course that its own deep
    linking placed (DeploymentQuiz). One query; nothing else is launchable from it."""
    if quiz.course_id is not None:
        return DeploymentCourse.objects.filter(
            deployment=deployment, course_id=quiz.course_id
        ).exists()
    return DeploymentQuiz.objects.filter(deployment=deployment, quiz=quiz).exists()


def authorised_course_ids(*, deployment) -> QuerySet:
    return DeploymentCourse.objects.filter(deployment=deployment).values("course_id")


def authorised_courses(*, deployment) -> QuerySet[Course]:
    return Course.objects.filter(pk__in=authorised_course_ids(deployment=deployment)).order_by(
        "order", "slug"
    )


def linkable_quizzes(*, user, deployment) -> QuerySet[Quiz]:
    """Quizzes the user may place in an LMS course of the deployment by deep linking:
    those of the courses they instruct (every course for staff) that the deployment is
    authorised for, and the staff-made ones with no course (open to every signed-in user
    anyway; placing one authorises the deployment for it). Each carries `total_points`,
    the line item's scoreMaximum, which must be above zero: a quiz without questions is
    left out. Adaptive lesson practice is reached through its lesson, never linked."""
    authorised = Q(course__in=course_list_for_instructor(user=user)) & Q(
        course__in=authorised_course_ids(deployment=deployment)
    )
    return (
        Quiz.objects.filter(adaptive=False)
        .filter(authorised | Q(course__isnull=True))
        .annotate(total_points=Sum("slots__points"))
        .filter(total_points__gt=0)
        .select_related("course")
        .order_by("course__order", "course__slug", "title", "pk")
    )


def instructs_a_course(*, user) -> bool:
    return course_list_for_instructor(user=user).exists()


def _score_syncs_seen(*, user, quiz: Quiz) -> QuerySet[ScoreSync]:
    """The quiz's rows the user may see: all for staff and the course's course-wide
    instructors, those of their own LMS contexts for an instructor scoped to them
    (assess.selectors.access decides). The caller gates on the quiz first."""
    rows = ScoreSync.objects.filter(quiz=quiz)
    scope = lti_context_filter_for_instructor(user=user, course_id=quiz.course_id)
    return rows if scope is None else rows.filter(scope)


def score_syncs_for_quiz(*, user, quiz: Quiz, state: str | None = None) -> QuerySet[ScoreSync]:
    """The quiz's LMS grade-sync rows (one per LMS user and LMS course) the user may see,
    optionally of one state: failed first, then pending, then sent, each by the learner's
    name (their full name, else their username). With the learner, LMS user and LMS
    course loaded. The caller gates: only the quiz's instructors and staff may read
    these, and an instructor scoped to an LMS course reads only its rows."""
    rows = _score_syncs_seen(user=user, quiz=quiz)
    if state is not None:
        rows = rows.filter(state=state)
    full_name = Trim(Concat("learner__first_name", Value(" "), "learner__last_name"))
    return (
        rows.select_related("learner", "lti_user", "context")
        .annotate(
            state_rank=Case(
                *(When(state=s, then=Value(i)) for i, s in enumerate(_STATE_ORDER)),
                default=Value(len(_STATE_ORDER)),
                output_field=IntegerField(),
            ),
            learner_sort=Lower(
                Case(
                    When(
                        Q(learner__first_name="", learner__last_name=""), then="learner__username"
                    ),
                    default=full_name,
                )
            ),
        )
        .order_by("state_rank", "learner_sort", "learner__username", "pk")
    )


def score_sync_counts(*, user, quiz: Quiz) -> dict[str, int]:
    """How many of the quiz's LMS scores the user may see are pending, sent and failed,
    and `unsent` (pending + failed: not yet in an LMS gradebook), in one query."""
    counts = _score_syncs_seen(user=user, quiz=quiz).aggregate(
        **{s.value: Count("pk", filter=Q(state=s)) for s in ScoreSync.State}
    )
    counts = {s.value: counts[s.value] or 0 for s in ScoreSync.State}
    counts["unsent"] = counts[ScoreSync.State.PENDING] + counts[ScoreSync.State.FAILED]
    return counts


def score_sync_ids_to_resend(*, user, quiz: Quiz, ids=None) -> list[int] | None:
    """What lti.grades.scores_resend should take for this user: `ids` unchanged for staff
    (None: every unsent row); for an instructor, the ids (of `ids`, or all) of the rows
    they may see, so a scoped instructor resends only their LMS contexts' scores."""
    if user.is_staff:
        return ids
    rows = _score_syncs_seen(user=user, quiz=quiz).exclude(state=ScoreSync.State.SENT)
    if ids is not None:
        rows = rows.filter(pk__in=list(ids))
    return list(rows.values_list("pk", flat=True))
