"""Celery tasks for certification: thin, idempotent, they call services."""

from celery import shared_task

from certify.services.calibration import calibration_run
from certify.services.certificates import certificates_expire, certificates_remind


@shared_task(name="certify.tasks.expire_and_remind")
def expire_and_remind() -> dict:
    """Beat: mark expired certificates (issuing renewals already earned) and mail
    reminders before expiry."""
    return {"expired": certificates_expire(), "reminded": certificates_remind()}


@shared_task(name="certify.tasks.recalibrate")
def recalibrate() -> dict:
    """Beat: calibrate every template from the responses so far (a new Calibration)."""
    result = calibration_run()
    c = result.calibration
    return {"calibration": c.pk if c else None, "left_out": len(result.left_out)}
