"""Structured logs (issue 44): every log line is one JSON object (LOG_FORMAT=json, the
default when DEBUG is off) or one readable console line (`make run`), through structlog
over the standard library's logging, so Django's, Celery's and our own loggers all come
out alike.

Context rides in contextvars: the request middleware (config.request_log) binds the
request id, the Celery signals (config.task_signals) carry it into the tasks a request
queues and bind it there, and every line logged meanwhile carries it. What a line may
hold is decided where lines are written: ids, routes, statuses, durations and counts;
never passwords, tokens, answers' values, memo text or email addresses.
"""

from __future__ import annotations

import structlog

SHARED = [
    structlog.contextvars.merge_contextvars,
    structlog.stdlib.add_log_level,
    structlog.stdlib.add_logger_name,
    structlog.processors.TimeStamper(fmt="iso", utc=True),
    structlog.stdlib.PositionalArgumentsFormatter(),
    structlog.processors.format_exc_info,
]


def formatter(fmt: str) -> structlog.stdlib.ProcessorFormatter:
    renderer = (
        structlog.processors.JSONRenderer()
        if fmt == "json"
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    return structlog.stdlib.ProcessorFormatter(
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
        foreign_pre_chain=SHARED,
    )


def logging_config(fmt: str, level: str) -> dict:
    """Django's LOGGING: one handler on stderr with the chosen renderer. django.request's
    per-response warnings are left out (they print the path, which can carry a password
    reset key; the request line says the same with the route pattern)."""
    structlog.configure(
        processors=[*SHARED, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"structured": {"()": formatter, "fmt": fmt}},
        "handlers": {
            "console": {"class": "logging.StreamHandler", "formatter": "structured"},
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": {"django.request": {"level": "ERROR"}, "django.server": {"level": "ERROR"}},
    }
