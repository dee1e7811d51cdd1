"""Celery tasks for assess: thin and idempotent, they call services."""

from celery import shared_task

from assess.services.attempts import attempts_expire
from assess.services.mastery import mastery_release_due


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
