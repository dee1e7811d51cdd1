"""Celery tasks for certification: thin, idempotent, they call services."""

from celery import shared_task

from certify.services.certificates import (
    certificates_expire,
    certificates_issue_due,
    certificates_remind,
)


@shared_task(name="certify.tasks.issue_due_certificates", ignore_result=True)
def issue_due_certificates(user_id: int) -> int:
    """Issue what the learner has earned; a repeat or a racing run issues nothing more."""
    return len(certificates_issue_due(user_id=user_id))


@shared_task(name="certify.tasks.expire_and_remind")
def expire_and_remind() -> dict:
    """Beat: mark expired certificates and mail reminders before expiry."""
    return {"expired": certificates_expire(), "reminded": certificates_remind()}
