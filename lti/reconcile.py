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

Not covered: a regrade lost in the same window leaves an existing row at the old score
(the row exists, so this pass cannot tell it apart from an unchanged one).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db.models import Exists, OuterRef
from django.utils import timezone
from lti_tool.models import LtiMembership

from assess.models import Attempt
from lti.grades import scores_queue
from lti.models import ScoreSync

RECONCILE_WINDOW = timedelta(days=2)  # releases older than this were reconciled already
RECONCILE_GRACE = timedelta(minutes=2)  # the after-commit path runs within milliseconds
BATCH = 200  # (quiz, learner) pairs a pass takes; the next pass takes the rest


def scores_reconcile(*, now: datetime | None = None) -> int:
    """Queue the released grades that have no ScoreSync row but should; returns how
    many (quiz, learner) pairs were brought in line."""
    now = now or timezone.now()
    lms_learner = LtiMembership.objects.filter(
        user__auth_user_id=OuterRef("learner_id"),
        context__can_publish_scores=True,
        context__resource_links__burnin_quiz__quiz_id=OuterRef("quiz_id"),
    )
    synced = ScoreSync.objects.filter(
        quiz_id=OuterRef("quiz_id"), learner_id=OuterRef("learner_id")
    )
    pairs = list(
        Attempt.objects.filter(
            mastery_applied_at__gte=now - RECONCILE_WINDOW,
            mastery_applied_at__lt=now - RECONCILE_GRACE,
        )
        .filter(Exists(lms_learner))
        .exclude(Exists(synced))
        .order_by()
        .values_list("quiz_id", "learner_id")
        .distinct()[:BATCH]
    )
    for quiz_id, learner_id in pairs:
        scores_queue(quiz_id=quiz_id, user_id=learner_id)
    return len(pairs)
