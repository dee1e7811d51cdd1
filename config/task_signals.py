"""What every Celery task records (issue 44): its run time by outcome and its failures
(config.metrics), and one log line (config.logging) carrying the request id of the
request that queued it.

The request id travels as a message header set at publish time from the publisher's
log context; the task binds it for every line it logs. A task run in process (the
embedded default, or `apply()`) runs inside its caller's context, which is kept and put
back afterwards. The worker's main process wipes this container's metric files before it
forks its children (config.metrics_dir).
"""

from __future__ import annotations

import time

import structlog
from celery import signals

from config.metrics import TASK_FAILURES, TASK_SECONDS
from config.metrics_dir import wipe_process_dir

log = structlog.get_logger("burnin.task")
_started: dict[str, tuple[float, dict]] = {}


@signals.worker_init.connect
def _wipe_metrics(**_kwargs) -> None:
    wipe_process_dir()


@signals.before_task_publish.connect
def _carry_request_id(headers=None, **_kwargs) -> None:
    request_id = structlog.contextvars.get_contextvars().get("request_id")
    if request_id and headers is not None:
        headers["request_id"] = request_id


def _request_id_of(task) -> str | None:
    request = getattr(task, "request", None)
    found = getattr(request, "request_id", None)
    if found is None:
        found = (getattr(request, "headers", None) or {}).get("request_id")
    return found


@signals.task_prerun.connect
def _task_started(task_id=None, task=None, **_kwargs) -> None:
    if not task_id:
        return
    caller = structlog.contextvars.get_contextvars()
    _started[task_id] = (time.perf_counter(), caller)
    request_id = _request_id_of(task) or caller.get("request_id")
    structlog.contextvars.clear_contextvars()
    structlog.contextvars.bind_contextvars(task_id=task_id)
    if request_id:
        structlog.contextvars.bind_contextvars(request_id=request_id)


@signals.task_postrun.connect
def _task_finished(task_id=None, task=None, state=None, **_kwargs) -> None:
    """Failures are counted here, not on task_failure: that signal is not sent for a
    task run in process whose exception propagates; postrun always is."""
    began, caller = _started.pop(task_id, (None, {}))
    if task is None:
        return
    outcome = {"SUCCESS": "success", "RETRY": "retry"}.get(state or "", "failure")
    seconds = time.perf_counter() - began if began is not None else None
    if seconds is not None:
        TASK_SECONDS.labels(task.name, outcome).observe(seconds)
    if outcome == "failure":
        TASK_FAILURES.labels(task.name).inc()
    log.info(
        "task",
        task=task.name,
        outcome=outcome,
        duration_ms=round(seconds * 1000, 1) if seconds is not None else None,
    )
    structlog.contextvars.clear_contextvars()
    if caller:
        structlog.contextvars.bind_contextvars(**caller)
