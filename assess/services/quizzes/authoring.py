"""Writing a quiz: create it, edit it while no one has started it, copy it.

Edits stop at the first attempt: an attempt's questions were drawn from the slots and
are scored by the rules it started under (points, tries, penalty, counting, feedback),
so changing any of them afterwards would score one class by two sets of rules. The
way on is a copy (quiz_duplicate), a new draft with the same slots, and closing the
original (lifecycle.quiz_close).
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from api_common.service_errors import Conflict, NotPermitted
from assess.models import Attempt, Quiz, Slot
from assess.services.drawn_variants import predraw_after_commit
from assess.services.quizzes.guards import (
    attempts_phrase,
    check_course_write,
    check_managed_here,
    check_quiz_author,
    lock_counting_attempts,
)
from assess.services.quizzes.spec import CheckedSpec, QuizSpec, spec_check, spec_course
from audit.models import AuditEvent
from audit.services import audit_record

COPY_SUFFIX = " (copy)"
TITLE_MAX = 200


def _checked(*, user, spec: QuizSpec, creating: bool) -> CheckedSpec:
    """The spec's course may be written by the user (checked first: a learner is told
    403 whatever else is wrong), then the whole spec. An unknown course is a 400 below,
    but only for someone who may create quizzes at all."""
    course = spec_course(spec)
    if course is not None or not spec.course_slug:
        check_course_write(user, course_id=course.pk if course else None, creating=creating)
    else:
        check_quiz_author(user)
    return spec_check(spec, course=course)


def _write_slots(quiz: Quiz, checked: CheckedSpec) -> None:
    Slot.objects.bulk_create(
        Slot(quiz=quiz, order=i + 1, points=s.points, templates=list(s.templates))
        for i, s in enumerate(checked.spec.slots)
    )
    quiz.lessons.set(checked.lessons)


def quiz_create(*, user, spec: QuizSpec, status: str = Quiz.Status.PUBLISHED) -> Quiz:
    """Create a quiz with its slots: published (the API's default, so clients written
    before drafts existed keep working) or a draft (the web builder's, which learners
    never see until it is published). Raises ValidationError (bad input, field by field)
    or NotPermitted (not staff, and not a course-wide instructor of the course: an
    instructor scoped to an LMS course may not add to the whole Burn-in course)."""
    checked = _checked(user=user, spec=spec, creating=True)
    if status not in Quiz.STORED_STATUSES:
        raise ValidationError({"status": ["A new quiz is a draft or published."]})
    with transaction.atomic():
        quiz = Quiz.objects.create(**checked.field_values(), status=status, created_by=user)
        _write_slots(quiz, checked)
        audit_record(actor=user, action=AuditEvent.Action.QUIZ_CREATE, target=quiz)
        predraw_after_commit(quiz)
    return quiz


def fixed_after_attempts(n: int) -> str:
    """Why a quiz with attempts takes no edit, and what to do instead."""
    return (
        f"{attempts_phrase(n)} on this quiz, so its questions and rules are fixed: "
        "every attempt is scored by the rules it started under. Duplicate it to make a "
        "changed copy (and close this one if it should take no more attempts)."
    )


def quiz_edit_refusal(*, user, quiz: Quiz) -> str | None:
    """Why quiz_update would refuse the user this quiz now, whatever the spec (None: it
    would not), for a page to say before offering the form."""
    try:
        check_course_write(user, course_id=quiz.course_id)
        check_managed_here(quiz)
    except (NotPermitted, Conflict) as err:
        return str(err)
    n = Attempt.objects.filter(quiz=quiz).count()
    return fixed_after_attempts(n) if n else None


def quiz_update(*, user, quiz: Quiz, spec: QuizSpec) -> Quiz:
    """Replace the quiz's settings and slots with the spec's, keeping its status, while
    no attempt exists. Raises NotPermitted (as quiz_create, for its course and for the
    course it would move to), Conflict (an attempt exists: why it is fixed, and what to
    do instead; or the quiz is managed elsewhere), or ValidationError.

    Extensions granted before the edit are kept: an extended close earlier than a new
    close, or extra time on a quiz that lost its time limit, changes nothing."""
    check_course_write(user, course_id=quiz.course_id)
    check_managed_here(quiz)
    checked = _checked(user=user, spec=spec, creating=False)
    with transaction.atomic():
        locked, n = lock_counting_attempts(quiz)
        if n:
            raise Conflict(fixed_after_attempts(n))
        values = checked.field_values()
        for name, value in values.items():
            setattr(locked, name, value)
        locked.save(update_fields=list(values))
        locked.slots.all().delete()
        _write_slots(locked, checked)
        audit_record(actor=user, action=AuditEvent.Action.QUIZ_UPDATE, target=locked)
        predraw_after_commit(locked)  # the old slots took their pools along
    return locked


def quiz_duplicate(*, user, quiz: Quiz) -> Quiz:
    """A new draft copy of the quiz (settings, dates, lessons, slots), made by the user,
    whatever the original's status and attempts; extensions and attempts stay with the
    original. Raises NotPermitted (as for creating a quiz in its course) or Conflict
    (lesson practice, which is its lesson's own)."""
    check_course_write(user, course_id=quiz.course_id, creating=True)
    if quiz.adaptive:
        check_managed_here(quiz)
    fields = (
        "mode",
        "course_id",
        "time_limit",
        "attempts_allowed",
        "cooldown",
        "opens_at",
        "closes_at",
        "feedback",
        "pass_mark",
        "counting_attempt",
        "tries_per_part",
        "penalty_per_try",
        "hint_penalty",
    )
    with transaction.atomic():
        copy = Quiz.objects.create(
            title=quiz.title[: TITLE_MAX - len(COPY_SUFFIX)] + COPY_SUFFIX,
            status=Quiz.Status.DRAFT,
            created_by=user,
            **{name: getattr(quiz, name) for name in fields},
        )
        Slot.objects.bulk_create(
            Slot(quiz=copy, order=s.order, points=s.points, templates=list(s.templates))
            for s in quiz.slots.order_by("order")
        )
        copy.lessons.set(quiz.lessons.all())
        audit_record(
            actor=user,
            action=AuditEvent.Action.QUIZ_DUPLICATE,
            target=copy,
            detail={"from_quiz": quiz.pk},
        )
    return copy
