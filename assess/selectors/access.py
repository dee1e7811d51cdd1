"""Reads on a user's behalf. These are the only gate to another learner's data.

A user who may not see an object gets DoesNotExist (the API's 404), never a hint that it
exists. Learners see the published quizzes of the courses they are enrolled in (and
published quizzes with no course), never a draft, and their own attempts; instructors
(CourseRole) see their courses' quizzes, drafts included, the attempts on them and their
enrolled learners; staff see everything.

Instructor scope: a CourseRole with no `lti_context` is course-wide (every learner of
the course, and course-wide changes: its quizzes, its enrolments). A CourseRole with an
`lti_context` (made by a teaching LTI launch) is scoped to that LMS course: of the
course's learners its holder sees only the members of that LMS context (django-lti's
LtiMembership, whose LtiUser.auth_user is the learner; active or not, as a member who
left keeps their record), and the grade-sync rows of that context. A user with a
course-wide role on the course (or staff) is not restricted. The rule is written once,
in `teaches_learner` and `_teaches_lti_context`; every reader of learner-level data for
an instructor goes through the selectors below that apply it.
"""

from __future__ import annotations

from datetime import datetime

from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from assess.models import Attempt, CourseRole, Enrolment, Extension, Question, Quiz
from assess.selectors.quiz_rows import quiz_get_reachable
from assess.selectors.writers import attempt_get_for_writer, attempt_get_own
from curricula.models import Course

SCOPED_WRITE_REFUSED = (
    "Instructors from an LMS course see and manage only that LMS course's learners; "
    "creating quizzes and adding or removing learners change the whole Burn-in course: "
    "ask a Burn-in administrator."
)


def _roles(user) -> QuerySet[CourseRole]:
    return CourseRole.objects.filter(user=user, role=CourseRole.Role.INSTRUCTOR)


def _instructed_course_ids(user) -> QuerySet:
    """Courses the user instructs, course-wide or scoped to an LMS context: whose quizzes
    they see. Which learners they see is teaches_learner's business."""
    return _roles(user).values("course_id")


def teaches_learner(user, *, course, learner) -> Q:
    """The one rule for a non-staff instructor: the learner (a user id, or an OuterRef to
    one) is theirs in the course (an id, or an OuterRef) when they hold a course-wide
    role on it, or a role scoped to an LMS context the learner is a member of. Pure SQL
    (two EXISTS), so applying it costs no query of its own."""
    roles = _roles(user).filter(course_id=course)
    course_wide = roles.filter(lti_context__isnull=True)
    scoped = roles.filter(lti_context__memberships__user__auth_user_id=learner)
    return Q(Exists(course_wide)) | Q(Exists(scoped))


def _teaches_lti_context(user, *, course, context) -> Q:
    """The same rule for rows that belong to an LMS context (grade sync): a course-wide
    role on the course, or a role scoped to that very context."""
    roles = _roles(user).filter(course_id=course)
    return Q(Exists(roles.filter(lti_context__isnull=True))) | Q(
        Exists(roles.filter(lti_context_id=context))
    )


def learner_filter_for_instructor(*, user, course_id: int, field: str = "learner_id") -> Q | None:
    """The learners of the course the user may see as its instructor, as a filter on the
    model's `field` (a user id: "learner_id", "user_id", "pk"): None for staff (no
    restriction); otherwise the rule of teaches_learner, which lets a course-wide
    instructor see everyone and a scoped one only their LMS contexts' members. The
    caller has gated on the course (an instructor of it, or staff)."""
    if user.is_staff:
        return None
    return teaches_learner(user, course=course_id, learner=OuterRef(field))


def lti_context_filter_for_instructor(
    *, user, course_id: int, field: str = "context_id"
) -> Q | None:
    """Rows of LMS contexts (e.g. lti.ScoreSync) the user may see on the course: None
    for staff; every context for a course-wide instructor; their own contexts for a
    scoped one."""
    if user.is_staff:
        return None
    return _teaches_lti_context(user, course=course_id, context=OuterRef(field))


def _scoped(qs: QuerySet, q: Q | None) -> QuerySet:
    return qs if q is None else qs.filter(q)


def user_is_instructor(*, user, course_id: int | None) -> bool:
    """An instructor of the course, course-wide or scoped to an LMS context: may open its
    teaching pages (which then show only the learners they may see)."""
    if course_id is None:
        return False
    return _roles(user).filter(course_id=course_id).exists()


def user_is_course_instructor(*, user, course_id: int | None) -> bool:
    """Staff or a course-wide instructor of the course: may change the course itself
    (create its quizzes, add and remove its learners)."""
    if user.is_staff:
        return True
    if course_id is None:
        return False
    return _roles(user).filter(course_id=course_id, lti_context__isnull=True).exists()


def course_wide_course_ids(*, user, among) -> set[int]:
    """Of the courses `among`, those the user may change (user_is_course_instructor for
    each), in one query."""
    ids = {c.pk for c in among}
    if user.is_staff:
        return ids
    return set(
        _roles(user)
        .filter(course_id__in=ids, lti_context__isnull=True)
        .values_list("course_id", flat=True)
    )


def quiz_author_roles(*, user) -> list[bool]:
    """For each of the user's instructor roles, whether it is course-wide (not scoped
    to an LMS course): who may create a quiz anywhere, read in one query."""
    return [c is None for c in _roles(user).values_list("lti_context_id", flat=True)]


def user_is_teacher(*, user) -> bool:
    """Staff, or an instructor of at least one course: who sees the teaching pages."""
    return user.is_authenticated and (user.is_staff or _instructed_course_ids(user).exists())


def course_list_for_instructor(*, user) -> QuerySet[Course]:
    """Courses the user may teach: every course for staff, their instructor roles else
    (course-wide or scoped: deep linking offers the quizzes of both)."""
    courses = Course.objects.order_by("order", "slug")
    return courses if user.is_staff else courses.filter(pk__in=_instructed_course_ids(user))


def user_can_manage_quiz(*, user, quiz: Quiz) -> bool:
    return user.is_staff or user_is_instructor(user=user, course_id=quiz.course_id)


def _enrolled_course_ids(user) -> QuerySet:
    return Enrolment.objects.filter(user=user).values("course_id")


def user_is_enrolled(*, user, course_id: int) -> bool:
    return Enrolment.objects.filter(user=user, course_id=course_id).exists()


def enrolled_course_ids(*, user) -> set[int]:
    return set(Enrolment.objects.filter(user=user).values_list("course_id", flat=True))


def enrolments_for_instructor(*, user, course: Course) -> QuerySet[Enrolment]:
    """The course's enrolments for its instructors and staff; DoesNotExist (404) for
    anyone else, as if the list were not there."""
    if not (user.is_staff or user_is_instructor(user=user, course_id=course.pk)):
        raise Enrolment.DoesNotExist
    rows = _scoped(
        course.enrolments.all(),
        learner_filter_for_instructor(user=user, course_id=course.pk, field="user_id"),
    )
    return rows.select_related("user").order_by("user__username")


def learners_of_course(*, user, course_id: int):
    """Ids of the users enrolled in the course whom the user (its instructor, or staff:
    the caller gates) may see: the only learners its instructors' tables show."""
    rows = _scoped(
        Enrolment.objects.filter(course_id=course_id),
        learner_filter_for_instructor(user=user, course_id=course_id, field="user_id"),
    )
    return rows.values("user_id")


def learner_of_instructor(*, user, course_id: int, learner) -> bool:
    """The learner is enrolled in the course and the user may see them as its
    instructor (see teaches_learner); staff see every enrolled learner. One query."""
    rows = Enrolment.objects.filter(course_id=course_id, user=learner)
    q = learner_filter_for_instructor(user=user, course_id=course_id, field="user_id")
    return _scoped(rows, q).exists()


# ----------------------------------------------------------------------------- quizzes


_PUBLISHED = Q(status=Quiz.Status.PUBLISHED)


def _reachable(user) -> Q:
    """The one rule for which quizzes a non-staff user may see: a published quiz with no
    course (staff-made, open to all signed-in users) or of a course they are enrolled
    in, and every quiz, drafts included, of a course they instruct. A draft is its
    instructors' and staff's alone: to a learner it does not exist (404), on every page,
    in the API and through LTI (whose start is refused by attempt_start)."""
    return (
        _PUBLISHED & (Q(course__isnull=True) | Q(course_id__in=_enrolled_course_ids(user)))
    ) | Q(course_id__in=_instructed_course_ids(user))


def quiz_list_for_user(*, user, now: datetime | None = None) -> QuerySet[Quiz]:
    """Quizzes the user can take (published, and not yet closed for them: their
    extension's later close counts) in the courses they are enrolled in (or with no
    course), plus every quiz, drafts included, of the courses they instruct; staff see
    all. Adaptive lesson practice is reached through its lesson."""
    now = now or timezone.now()
    qs = (
        Quiz.objects.filter(adaptive=False)
        .select_related("course")
        .prefetch_related("slots", "lessons")
    )
    if user.is_staff:
        return qs
    extended = Extension.objects.filter(learner=user, closes_at__gt=now).values("quiz_id")
    not_closed = Q(closes_at__isnull=True) | Q(closes_at__gt=now) | Q(pk__in=extended)
    instructed = Q(course_id__in=_instructed_course_ids(user))
    # _reachable's rule, narrowed for learners to what has not closed for them.
    return qs.filter(_reachable(user) & (not_closed | instructed))


def quiz_get_for_user(*, user, pk: int) -> Quiz:
    """A (non-adaptive) quiz the user may see: published and in a course they are
    enrolled in (or in no course), or any quiz of a course they instruct, or any for
    staff (see _reachable). Its dates, attempt limit and status (a draft cannot be
    started, even by its instructors) are attempt_start's business. Raises
    Quiz.DoesNotExist (404) for anyone else, a learner asking for a draft included.
    One query, written as SQL (quiz_rows: every start asks it)."""
    return quiz_get_reachable(user=user, pk=pk)


def quiz_get_for_instructor(*, user, pk: int) -> Quiz:
    """A quiz the user instructs (or any, for staff). Raises Quiz.DoesNotExist."""
    qs = Quiz.objects.select_related("course")
    if not user.is_staff:
        qs = qs.filter(course_id__in=_instructed_course_ids(user))
    return qs.get(pk=pk)


def extension_of(*, quiz: Quiz, learner) -> Extension | None:
    """The learner's extension on the quiz, if any: one query, none for a quiz with
    neither a time limit nor a close (an extension changes nothing there)."""
    if not quiz.extension_applies:
        return None
    return Extension.objects.filter(quiz=quiz, learner=learner).first()


def extended_closes_for_user(*, user) -> dict[int, datetime]:
    """{quiz id: later close} of the user's extensions that move a close: one query,
    as small as the user's extensions. Readers pass it to Quiz.closes_at_for_learner."""
    if not user.is_authenticated:
        return {}
    return dict(
        Extension.objects.filter(learner=user, closes_at__isnull=False).values_list(
            "quiz_id", "closes_at"
        )
    )


def extensions_for_instructor(*, user, quiz: Quiz) -> QuerySet[Extension]:
    """The quiz's extensions, by learner id, for its instructors and staff (of the
    learners they may see); empty for anyone else (the views gate with
    quiz_get_for_instructor first)."""
    if not user_can_manage_quiz(user=user, quiz=quiz):
        return Extension.objects.none()
    rows = _scoped(
        Extension.objects.filter(quiz=quiz),
        learner_filter_for_instructor(user=user, course_id=quiz.course_id),
    )
    return rows.select_related("learner", "granted_by").order_by("learner_id")


# ---------------------------------------------------------------------------- attempts


def attempt_get_for_user(*, user, pk: int, write: bool = False) -> Attempt:
    """The attempt if the user may read it; with write=True only its own learner may,
    and only while they may still take the quiz (the write gate: assess.selectors.
    writers).

    Raises Attempt.DoesNotExist otherwise, so another learner's attempt is a 404 (and
    so is the attempt of a learner outside a scoped instructor's LMS contexts). The
    instructor checks are subqueries of the same query: no extra query.
    """
    if write:
        return attempt_get_for_writer(user=user, pk=pk)
    own = attempt_get_own(user=user, pk=pk) if user.is_authenticated else None
    if own is not None:
        return own
    qs = Attempt.objects.select_related("quiz", "learner")
    if not user.is_staff:
        qs = qs.filter(Q(learner=user) | _instructor_attempts_q(user))
    return qs.get(pk=pk)


def _instructor_attempts_q(user) -> Q:
    """On Attempt: attempts whose learner the (non-staff) user teaches in the quiz's
    course."""
    return teaches_learner(user, course=OuterRef("quiz__course_id"), learner=OuterRef("learner_id"))


def attempts_seen_by_instructor(*, user) -> QuerySet[Attempt]:
    """Every attempt the user may read as an instructor (all for staff): for counts
    across their quizzes, e.g. the teaching index's."""
    return (
        Attempt.objects.all()
        if user.is_staff
        else Attempt.objects.filter(_instructor_attempts_q(user))
    )


def attempts_for_instructor(*, user, quiz: Quiz) -> QuerySet[Attempt]:
    """Every attempt on a quiz the user instructs by a learner they may see (see
    teaches_learner); empty for anyone else."""
    if not user_can_manage_quiz(user=user, quiz=quiz):
        return Attempt.objects.none()
    rows = _scoped(
        quiz.attempts.all(), learner_filter_for_instructor(user=user, course_id=quiz.course_id)
    )
    return rows.select_related("learner", "quiz").order_by("started_at", "id")


def attempt_list_for_user(*, user, quiz: Quiz) -> QuerySet[Attempt]:
    """All attempts for the quiz's instructors and staff, the user's own for learners."""
    if user_can_manage_quiz(user=user, quiz=quiz):
        return attempts_for_instructor(user=user, quiz=quiz)
    return quiz.attempts.filter(learner=user).select_related("learner", "quiz")


def question_get_for_attempt(*, attempt: Attempt, pk: int) -> Question:
    """A question of this attempt (the attempt was gated already). Raises DoesNotExist."""
    return Question.objects.select_related("slot").get(pk=pk, attempt=attempt)
