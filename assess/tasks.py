"""Celery tasks for assess: thin and idempotent, they call services."""

from celery import shared_task

from assess.services.attempts import attempts_expire


@shared_task(name="assess.tasks.expire_attempts")
def expire_attempts() -> int:
    """Close attempts past their deadline; a second run (or a late one) changes nothing
    that the first did not, since each attempt is rechecked under its lock."""
    return attempts_expire()
