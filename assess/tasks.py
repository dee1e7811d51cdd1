"""Celery tasks for assess: thin and idempotent, they call services."""

from celery import shared_task
from django.db import InterfaceError, OperationalError

from assess.services.attempts import attempts_expire
from assess.services.mastery import mastery_release_due
from assess.services.memos import (
    memo_review_failed,
    memo_review_run,
    memo_reviews_requeue_stuck,
)


@shared_task(name="assess.tasks.expire_attempts")
def expire_attempts() -> int:
    """Close attempts past their deadline; a second run (or a late one) changes nothing
    that the first did not, since each attempt is rechecked under its lock."""
    return attempts_expire()


@shared_task(name="assess.tasks.release_mastery")
def release_mastery() -> int:
    """Apply held exam answers to mastery once their grades are visible (quizzes whose
    feedback waits for their close). Idempotent: each attempt is stamped under its lock."""
    return mastery_release_due()


# The database went away for a moment (a restart, a dropped connection): worth a retry.
TRANSIENT = (OperationalError, InterfaceError)


@shared_task(
    name="assess.tasks.review_memo_version",
    bind=True,
    ignore_result=True,  # the review is in the database; nothing reads a result
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=TRANSIENT,
    retry_backoff=2,
    retry_backoff_max=120,
    retry_jitter=False,
    max_retries=5,
)
def review_memo_version(self, version_id: int) -> str:
    """Review one memo version, on the `reviews` queue (settings.CELERY_TASK_ROUTES).

    Acknowledged only when it returns, and requeued if its pool process dies
    (reject_on_worker_lost), so a killed review runs again; the service makes a second
    run change nothing. Database hiccups retry with backoff (2, 4, 8 ... s, at most 120);
    when retries are spent the version is marked failed with the reason."""
    try:
        return memo_review_run(version_id=version_id)
    except TRANSIENT as exc:
        if self.request.retries >= self.max_retries:
            memo_review_failed(version_id=version_id, reason=f"database unavailable: {exc}")
        raise
    except Exception as exc:  # a bug in the review itself: say so, do not retry forever
        memo_review_failed(version_id=version_id, reason=f"{type(exc).__name__}: {exc}")
        raise


@shared_task(name="assess.tasks.requeue_stuck_reviews")
def requeue_stuck_reviews() -> int:
    """Beat: queue again the reviews left queued or running past their deadline."""
    return memo_reviews_requeue_stuck()
