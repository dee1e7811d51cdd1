import logging
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("burnin")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def try_delay(task, *args, what: str) -> bool:
    """Queue `task(*args)`; False, logged, when the broker cannot take it (kombu's
    OperationalError, redis' ConnectionError, ...). Callers queue after committing what
    the task works on, and each has its own way to queue it again later, so a broker
    outage never turns the request that caused the work into an error."""
    try:
        task.delay(*args)
    except Exception as exc:
        logging.getLogger(__name__).warning("%s not queued (%s)", what, exc)
        return False
    return True
