"""Celery tasks for the hardware catalog: thin and idempotent, they call the service."""

from celery import shared_task

from hardware_db.services import hardware_load


@shared_task(name="hardware_db.reload")
def hardware_reload() -> dict[str, int]:
    """Reload the data files into the database; running it twice changes nothing."""
    report = hardware_load()
    return {"created": report.created, "updated": report.updated, "unchanged": report.unchanged}
