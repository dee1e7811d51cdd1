"""Celery tasks for certification: thin, idempotent, they call services."""

from celery import shared_task

from certify.services.certificates import certificates_expire, certificates_remind


@shared_task(name="certify.tasks.expire_and_remind")
def expire_and_remind() -> dict:
    """Beat: mark expired certificates (issuing renewals already earned) and mail
    reminders before expiry."""
    return {"expired": certificates_expire(), "reminded": certificates_remind()}
