"""Celery tasks for grade passback: thin, idempotent, they call lti.grades."""

from __future__ import annotations

import logging
import random

from celery import shared_task
from django.db import InterfaceError, OperationalError
from lti_tool.models import LtiContext

from lti.grades import score_deliver, score_give_up, scores_requeue_stale
from lti.platform_client import Permanent, Transient
from lti.reconcile import scores_reconcile
from lti.roster import roster_sync

log = logging.getLogger(__name__)

MAX_RETRIES = 8
# The database went away under the delivery (a restart, a pause, a dropped connection):
# its transaction rolled back, the row is still pending, and a retry will find it.
DATABASE_DOWN = (OperationalError, InterfaceError)


def backoff(retries: int) -> float:
    """10 s, 20 s, 40 s ... at most an hour, with up to 20 % jitter so a recovering
    LMS is not hit by every retry at once. Eight retries span about 40 minutes."""
    base = min(10 * 2**retries, 3600)
    return base * (1 + random.random() * 0.2)


@shared_task(
    name="lti.tasks.post_score",
    bind=True,
    ignore_result=True,
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=MAX_RETRIES,
)
def post_score(self, sync_id: int) -> str:
    """Deliver one score. Transient failures (5xx, 429, timeouts, a token refused twice
    is not one of them) retry with backoff; when retries are spent the row is failed
    with the last reason and waits for the instructor's resend.

    A database error retries the same way: raised out of the task, it was acknowledged
    (acks_late acks a failure) and the row stayed pending, its message gone, until the
    beat's requeue ten minutes later (the chaos run's PostgreSQL restart and pause)."""
    try:
        return score_deliver(sync_id=sync_id)
    except (Transient, *DATABASE_DOWN) as exc:
        if self.request.retries >= self.max_retries:
            reason = f"gave up after {self.max_retries + 1} tries: {exc}"
            score_give_up(sync_id=sync_id, reason=reason)
            return "failed"
        raise self.retry(exc=exc, countdown=backoff(self.request.retries)) from exc


@shared_task(
    name="lti.tasks.sync_roster",
    bind=True,
    ignore_result=True,
    acks_late=True,
    max_retries=3,
)
def sync_roster(self, context_id: int) -> dict:
    """Read an LMS course's roster (Names and Roles) into memberships and enrolments.
    Transient failures retry (30 s, 60 s, 120 s); a permanent one is logged and the
    next instructor launch after ROSTER_INTERVAL tries again."""
    context = (
        LtiContext.objects.select_related("deployment__registration").filter(pk=context_id).first()
    )
    if context is None:
        return {}
    try:
        report = roster_sync(context=context)
    except Transient as exc:
        raise self.retry(exc=exc, countdown=30 * 2**self.request.retries) from exc
    except Permanent as exc:
        log.warning("roster of LMS context %s refused: %s", context_id, exc)
        return {"error": exc.reason}
    return {"members": report.members, "enrolled": report.learners_enrolled}


@shared_task(name="lti.tasks.requeue_scores")
def requeue_scores() -> int:
    """Beat: queue pending scores whose message was lost or never sent, and released
    grades whose rows were never written (lti.reconcile)."""
    return scores_requeue_stale() + scores_reconcile()
