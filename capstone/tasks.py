"""Celery tasks for the capstone: thin and idempotent, they call services."""

from celery import shared_task
from django.db import InterfaceError, OperationalError

from capstone.services import (
    memo_review_failed,
    memo_review_run,
    memo_reviews_requeue_stuck,
)

# The database went away for a moment (a restart, a dropped connection): worth a retry.
TRANSIENT = (OperationalError, InterfaceError)


@shared_task(
    name="capstone.tasks.review_memo_version",
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


@shared_task(name="capstone.tasks.requeue_stuck_reviews")
def requeue_stuck_reviews() -> int:
    """Beat: queue again the reviews left queued or running past their deadline."""
    return memo_reviews_requeue_stuck()
