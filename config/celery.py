import importlib
import logging
import os
import time

from celery import Celery, signals

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


# Task metrics (config.metrics): run time by task and outcome, failures by task. The
# worker's main process wipes this container's metric files before it forks children.
_started: dict[str, float] = {}


@signals.worker_init.connect
def _wipe_metrics(**_kwargs) -> None:
    from config.metrics_dir import wipe_process_dir

    wipe_process_dir()


@signals.task_prerun.connect
def _task_started(task_id=None, **_kwargs) -> None:
    if task_id:
        _started[task_id] = time.perf_counter()


@signals.task_postrun.connect
def _task_finished(task_id=None, task=None, state=None, **_kwargs) -> None:
    """Counted here, not on task_failure: that signal is not sent for a task run in
    process (the embedded default) whose exception propagates; postrun always is."""
    from config.metrics import TASK_FAILURES, TASK_SECONDS

    began = _started.pop(task_id, None)
    if task is None:
        return
    outcome = {"SUCCESS": "success", "RETRY": "retry"}.get(state or "", "failure")
    if began is not None:
        TASK_SECONDS.labels(task.name, outcome).observe(time.perf_counter() - began)
    if outcome == "failure":
        TASK_FAILURES.labels(task.name).inc()
