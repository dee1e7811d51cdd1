"""A quiz's life: draft, published, closed.

- **Draft**: the web builder's new quizzes and every copy. Only the course's instructors
  and staff see it (assess.selectors.access), and no one can start it
  (services.attempts), so it is free to edit and preview.
- **Published**: learners of its course see it and start it within its dates.
  Unpublishing (back to draft) is refused once any attempt exists: it would hide the
  quiz, and the grades of those who took it, from its learners. Close it instead.
- **Closed**: published, with its close passed for everyone (`Quiz.status_at`). Not a
  stored state: closing now (quiz_close) moves `closes_at` to now, so everything keyed
  on the close (no new start, no more answers, feedback "after the quiz closes",
  held mastery, LMS grades) follows from the one field it has always followed. A closed
  quiz keeps every attempt and grade; its learners keep reading them.

Publish and unpublish of a quiz already in that state change nothing and succeed, so a
repeated request (a double click, a client's retry) is harmless.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from api_common.service_errors import Conflict
from assess.models import Attempt, Extension, Quiz
from assess.services.attempts import attempts_expire, moment_words
from assess.services.drawn_variants import predraw_after_commit
from assess.services.quizzes.guards import (
    attempts_phrase,
    check_course_write,
    check_managed_here,
    lock_counting_attempts,
)
from audit.models import AuditEvent
from audit.services import audit_record


def _check(user, quiz: Quiz) -> None:
    check_course_write(user, course_id=quiz.course_id)
    check_managed_here(quiz)


def quiz_publish(*, user, quiz: Quiz, now: datetime | None = None) -> Quiz:
    """Make a draft visible to its learners (a published quiz stays as it is). Raises
    NotPermitted (not staff or a course-wide instructor) or Conflict: the quiz is
    managed elsewhere, has no question, or its close has passed (publishing it would
    show learners a quiz they can never start: set a later close first)."""
    now = now or timezone.now()
    _check(user, quiz)
    with transaction.atomic():
        locked, _ = lock_counting_attempts(quiz)
        if locked.status == Quiz.Status.PUBLISHED:
            return locked
        if not locked.slots.exists():
            raise Conflict("This quiz has no question yet: add a slot before publishing it.")
        closes = locked.closed_for_all_at
        if closes is not None and closes <= now:
            raise Conflict(
                f"This quiz closed at {moment_words(closes)}: give it a later close before "
                "publishing it."
            )
        locked.status = Quiz.Status.PUBLISHED
        locked.save(update_fields=["status"])
        audit_record(actor=user, action=AuditEvent.Action.QUIZ_PUBLISH, target=locked)
        predraw_after_commit(locked)
    return locked


def quiz_unpublish(*, user, quiz: Quiz) -> Quiz:
    """Take a published quiz back to draft while no attempt exists (a draft stays as it
    is): its learners no longer see it, and an LMS link to it answers 409 until it is
    published again. Raises NotPermitted, or Conflict when an attempt exists (saying
    why, and to close it instead) or the quiz is managed elsewhere."""
    _check(user, quiz)
    with transaction.atomic():
        locked, n = lock_counting_attempts(quiz)
        if locked.status == Quiz.Status.DRAFT:
            return locked
        if n:
            raise Conflict(
                f"{attempts_phrase(n)} on this quiz: unpublishing it would hide the quiz, "
                "and the grades of those who took it, from its learners. Close it "
                "instead: no new attempt starts, and every attempt and grade stays."
            )
        locked.status = Quiz.Status.DRAFT
        locked.save(update_fields=["status"])
        audit_record(actor=user, action=AuditEvent.Action.QUIZ_UNPUBLISH, target=locked)
    return locked


def quiz_close(*, user, quiz: Quiz, now: datetime | None = None) -> Quiz:
    """Close a published quiz now: `closes_at` becomes now (a quiz already past its own
    close stays as it is). No attempt starts from then on; open attempts end now with
    every answer saved so far (they are expired at once, and scored); a learner given a
    later close by an extension keeps it, as with any close. Raises NotPermitted, or
    Conflict for a draft (nothing is open), a quiz that has not opened yet (unpublish it
    or move its dates instead), or one managed elsewhere."""
    now = now or timezone.now()
    _check(user, quiz)
    with transaction.atomic():
        locked, _ = lock_counting_attempts(quiz)
        if locked.status == Quiz.Status.DRAFT:
            raise Conflict(
                "This quiz is a draft: no learner can take it, so there is nothing to close."
            )
        if locked.closes_at is not None and locked.closes_at <= now:
            return locked
        if locked.opens_at is not None and locked.opens_at >= now:
            raise Conflict(
                f"This quiz opens at {moment_words(locked.opens_at)}: it has not opened, so "
                "unpublish it or change its dates instead."
            )
        locked.closes_at = now
        locked.save(update_fields=["closes_at"])
        # The close caps every open attempt's deadline, except where an extension
        # gives the learner a later close (theirs is unchanged by the quiz's).
        kept = Extension.objects.filter(quiz=locked, closes_at__gt=now).values("learner_id")
        Attempt.objects.filter(quiz=locked, status=Attempt.Status.OPEN).filter(
            Q(deadline__isnull=True) | Q(deadline__gt=now)
        ).exclude(learner_id__in=kept).update(deadline=now)
        audit_record(
            actor=user,
            action=AuditEvent.Action.QUIZ_CLOSE,
            target=locked,
            detail={"closes_at": now.isoformat()},
        )
    # Each ends under its own lock, scored, its held answers released as any expiry.
    attempts_expire(now=now, quiz=locked)
    return locked
