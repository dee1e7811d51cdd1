"""The safety net under grade passback: released grades that never got a ScoreSync row.

A grade reaches the LMS through assess's grade_released, sent after the commit that
releases it (lti.receivers.on_grade_released writes the learner's ScoreSync rows). If
the process dies or the database goes away between that commit and the receiver's own,
the grade is released in Burn-in and no row says the LMS still needs it: nothing would
ever send it (docs/reliability.md named this hole). The beat's requeue also runs
scores_reconcile: every attempt released in the last RECONCILE_WINDOW, at least
RECONCILE_GRACE ago (the after-commit path had its chance), by a learner the quiz's LMS
contexts can take a score for, with no ScoreSync row for that quiz and learner, is
queued as its release would have (scores_queue: idempotent, a row per context).

A regrade lost the same way leaves the row at the score from before. The regrade's audit
event names the released attempts it rescored (assess.services.regrade); the same pass
takes those events of the window, past the grace, and queues each learner whose row for
one of those attempts still holds another score than the attempt's points now. Not
covered: a regrade that made another of the learner's attempts the counted one, while the
row names an attempt whose points did not move (the next release or resend fixes it).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db.models import Exists, F, OuterRef, Value
from django.db.models.functions import Coalesce, Greatest, Least
from django.utils import timezone
from lti_tool.models import LtiMembership

from assess.models import Attempt
from audit.models import AuditEvent
from lti.grades import scores_queue
from lti.models import ScoreSync

RECONCILE_WINDOW = timedelta(days=2)  # releases older than this were reconciled already
RECONCILE_GRACE = timedelta(minutes=2)  # the after-commit path runs within milliseconds
BATCH = 200  # (quiz, learner) pairs a pass takes; the next pass takes the rest


def scores_reconcile(*, now: datetime | None = None) -> int:
    """Queue the released grades that have no ScoreSync row but should, and the regraded
    ones whose row kept the old score; returns how many (quiz, learner) pairs were
    brought in line."""
    now = now or timezone.now()
    return _unsynced_releases(now) + _stale_regrades(now)


def _unsynced_releases(now: datetime) -> int:
    lms_learner = LtiMembership.objects.filter(
        user__auth_user_id=OuterRef("learner_id"),
        context__can_publish_scores=True,
        context__resource_links__burnin_quiz__quiz_id=OuterRef("quiz_id"),
    )
    synced = ScoreSync.objects.filter(
        quiz_id=OuterRef("quiz_id"), learner_id=OuterRef("learner_id")
    )
    return _queue(
        Attempt.objects.filter(
            mastery_applied_at__gte=now - RECONCILE_WINDOW,
            mastery_applied_at__lt=now - RECONCILE_GRACE,
        )
        .filter(Exists(lms_learner))
        .exclude(Exists(synced))
    )


def _stale_regrades(now: datetime) -> int:
    details = AuditEvent.objects.filter(
        action=AuditEvent.Action.REGRADE,
        at__gte=now - RECONCILE_WINDOW,
        at__lt=now - RECONCILE_GRACE,
    ).values_list("detail", flat=True)
    regraded = {pk for detail in details for pk in (detail or {}).get("released_attempts", [])}
    if not regraded:
        return 0
    # What scores_queue would write for the attempt the row names (points clamped to the
    # row's maximum), compared in the database.
    given_now = Least(
        Greatest(Coalesce(F("attempt__points"), Value(0.0)), Value(0.0)), F("score_maximum")
    )
    return _queue(
        ScoreSync.objects.filter(attempt_id__in=regraded)
        .alias(given_now=given_now)
        .exclude(score_given=F("given_now"))
    )


def _queue(rows) -> int:
    """scores_queue for the first BATCH (quiz, learner) pairs of `rows`; how many."""
    pairs = list(rows.order_by().values_list("quiz_id", "learner_id").distinct()[:BATCH])
    for quiz_id, learner_id in pairs:
        scores_queue(quiz_id=quiz_id, user_id=learner_id)
    return len(pairs)
