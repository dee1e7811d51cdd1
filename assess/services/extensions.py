"""Per-learner extensions: extra time on the time limit, a later close for one learner.

The only writers of Extension rows. Each write, in one transaction:

- locks the quiz row, so grants and revokes on one quiz are serialised;
- upserts or deletes the learner's extension;
- recomputes `Quiz.extended_until`, the latest extension close on the quiz, from the
  rows themselves (one aggregate), so `Quiz.closed_for_all_at` -- what "after the quiz
  closes" feedback and mastery_release_due wait for -- is always the latest deadline of
  any learner;
- recomputes the deadline of the learner's open attempt under its row lock, so a learner
  mid-exam gets the extra time at once (and loses it at once on a revoke, see
  extension_revoke).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from api_common.service_errors import NotPermitted
from assess.models import Attempt, Extension, Quiz
from assess.selectors import (
    learner_filter_for_instructor,
    learner_of_instructor,
    user_can_manage_quiz,
)
from assess.selectors.duties import Judgement, refuse_own_work
from assess.services.attempts import attempt_deadline, moment_words
from audit.models import AuditEvent
from audit.services import audit_record

# As long as the longest time limit a quiz may have.
MAX_EXTRA_TIME = timedelta(days=7)


def _check_manager(user, quiz: Quiz) -> None:
    if not user_can_manage_quiz(user=user, quiz=quiz):
        raise NotPermitted("Only this quiz's instructors (and staff) grant extensions.")


def _validate(*, user, quiz: Quiz, learner, extra_time, closes_at, now: datetime) -> None:
    """Field by field, as a ValidationError naming `learner`, `extra_time`, `closes_at`.
    The learner must be enrolled in the quiz's course and one the user may see as its
    instructor (an instructor scoped to an LMS course: a member of it); to them, anyone
    else is as if not enrolled."""
    errors: dict[str, list[str]] = {}
    if quiz.course_id is not None and not learner_of_instructor(
        user=user, course_id=quiz.course_id, learner=learner
    ):
        errors["learner"] = ["This learner is not enrolled in the quiz's course."]
    if extra_time is None and closes_at is None:
        errors["extra_time"] = ["An extension gives extra time, a later close, or both."]
    if extra_time is not None:
        if not timedelta(0) < extra_time <= MAX_EXTRA_TIME:
            errors["extra_time"] = ["Extra time must be positive and at most 7 days."]
        elif quiz.time_limit is None:
            errors["extra_time"] = ["This quiz has no time limit to extend."]
    if closes_at is not None:
        if quiz.closes_at is None:
            errors["closes_at"] = ["This quiz never closes: there is no close to extend."]
        elif closes_at <= quiz.closes_at:
            after = moment_words(quiz.closes_at)
            errors["closes_at"] = [f"An extended close must be after the quiz's close ({after})."]
        elif closes_at <= now:
            errors["closes_at"] = ["An extended close must be in the future."]
    if errors:
        raise ValidationError(errors)


def _lock_quiz(quiz: Quiz) -> Quiz:
    return Quiz.objects.select_for_update().get(pk=quiz.pk)


def _refresh_extended_until(quiz: Quiz) -> None:
    """The latest extension close on the quiz, stored on the (locked) quiz row."""
    latest = Extension.objects.filter(quiz=quiz).aggregate(latest=Max("closes_at"))["latest"]
    if latest != quiz.extended_until:
        quiz.extended_until = latest
        Quiz.objects.filter(pk=quiz.pk).update(extended_until=latest)


def _reschedule_open_attempt(
    *, quiz: Quiz, learner, extension: Extension | None, now: datetime
) -> None:
    """Recompute the deadline of the learner's open attempt, under its row lock.

    Only an attempt still in time is rescheduled: one already past its deadline is over
    (it takes no answers; the next start or the expiry task closes it at that
    deadline), and an extension granted afterwards does not reopen it -- whether it
    would otherwise depend on when the expiry task last ran.

    The new deadline is never before `now`: on a revoke (or a smaller grant) a learner
    who has already used more than their new allowance keeps every answer saved so far
    and can send no more; the attempt ends now rather than in the past, so nothing that
    was in time when it was saved is made late after the fact.
    """
    attempt = (
        Attempt.objects.select_for_update(of=("self",))
        .filter(quiz=quiz, learner=learner, status=Attempt.Status.OPEN)
        .first()
    )
    if attempt is None or attempt.past_deadline(now):
        return
    deadline = attempt_deadline(quiz, attempt.started_at, extension)
    if deadline is not None and deadline < now:
        deadline = now
    if deadline != attempt.deadline:
        attempt.deadline = deadline
        attempt.save(update_fields=["deadline"])


def extension_grant(
    *,
    user,
    quiz: Quiz,
    learner,
    extra_time: timedelta | None = None,
    closes_at: datetime | None = None,
    now: datetime | None = None,
) -> Extension:
    """Give the learner extra time and/or a later close on the quiz, replacing any
    extension they had (an upsert: the fields given are the whole extension). Raises
    NotPermitted (not staff, not an instructor of the quiz's course) or ValidationError
    field by field: `learner` not enrolled in the quiz's course; `extra_time` not
    positive, over 7 days, or on a quiz with no time limit; `closes_at` not after the
    quiz's close, not in the future, or on a quiz that never closes; neither given.

    Takes effect at once, the learner's open attempt included (its deadline is
    recomputed), and moves the quiz's "closed for everyone" time when the close is the
    latest of any learner's."""
    now = now or timezone.now()
    _check_manager(user, quiz)
    refuse_own_work(actor=user, subject_id=learner.pk, judgement=Judgement.EXTENSION)
    _validate(
        user=user, quiz=quiz, learner=learner, extra_time=extra_time, closes_at=closes_at, now=now
    )
    with transaction.atomic():
        locked = _lock_quiz(quiz)
        extension, _ = Extension.objects.update_or_create(
            quiz=locked,
            learner=learner,
            defaults={"extra_time": extra_time, "closes_at": closes_at, "granted_by": user},
        )
        _refresh_extended_until(locked)
        _reschedule_open_attempt(quiz=locked, learner=learner, extension=extension, now=now)
        audit_record(
            actor=user,
            action=AuditEvent.Action.EXTENSION_GRANT,
            target=locked,
            detail={
                "learner": learner.get_username(),
                "extra_time_s": extra_time.total_seconds() if extra_time else None,
                "closes_at": closes_at.isoformat() if closes_at else None,
            },
        )
    quiz.extended_until = locked.extended_until
    extension.quiz = quiz
    return extension


def extension_revoke(*, user, quiz: Quiz, learner, now: datetime | None = None) -> bool:
    """Take the learner's extension away; True if they had one the user may see (an
    instructor scoped to an LMS course sees only its members'). Raises NotPermitted as
    extension_grant does.

    The learner's open attempt falls back to the quiz's own time limit and close, but
    never ends before now: if the learner is already past the deadline the quiz alone
    would give, the attempt ends at once with every answer saved so far (see
    _reschedule_open_attempt). Ending it in the past would turn answers that were in time
    when they were saved into late ones, and keeping the extended deadline would make a
    revoke mean nothing to a learner mid-attempt."""
    now = now or timezone.now()
    _check_manager(user, quiz)
    refuse_own_work(actor=user, subject_id=learner.pk, judgement=Judgement.EXTENSION)
    with transaction.atomic():
        locked = _lock_quiz(quiz)
        # Only an extension the user may see: to an instructor scoped to an LMS course,
        # another LMS course's learner has none (False: the API's 404).
        rows = Extension.objects.filter(quiz=locked, learner=learner)
        scope = learner_filter_for_instructor(user=user, course_id=quiz.course_id)
        deleted, _ = (rows if scope is None else rows.filter(scope)).delete()
        if not deleted:
            return False
        _refresh_extended_until(locked)
        _reschedule_open_attempt(quiz=locked, learner=learner, extension=None, now=now)
        audit_record(
            actor=user,
            action=AuditEvent.Action.EXTENSION_REVOKE,
            target=locked,
            detail={"learner": learner.get_username()},
        )
    quiz.extended_until = locked.extended_until
    return True
