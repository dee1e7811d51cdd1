import importlib
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


def queue(task_path: str, *args, what: str) -> bool:
    """try_delay for the task at `task_path` ("app.tasks.name"), found when called.

    Services queue their tasks through this by name, so that a service module never
    imports its app's tasks module: the tasks import the services they run, and a
    services-to-tasks import would close a circle. The module attribute is read at call
    time, so a test that replaces the task in its module replaces what is queued."""
    module, _, name = task_path.rpartition(".")
    return try_delay(getattr(importlib.import_module(module), name), *args, what=what)


# Task metrics and one log line per task, with the request id of the request that queued
# it (config.task_signals): connected when the app is.
import config.task_signals  # noqa: E402, F401
