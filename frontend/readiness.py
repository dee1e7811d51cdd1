"""Readiness (`/readyz`): may this process take traffic now? (`/healthz` stays liveness:
the process answers and reaches its database, which is what compose restarts on.)

Three checks, each cut off at READINESS_TIMEOUT seconds so a hung dependency makes the
probe fail in bounded time rather than hang the load balancer's request:

- database: `SELECT 1` on this thread's connection (psycopg's connect timeout bounds a
  connect; the probe's own budget is checked on the wall clock after it);
- cache: a set and a get of one short-lived key;
- broker: a connection opened and closed, with the embedded default (no broker: tasks
  run in-process) reported as such, not as a failure.

A failure is named with the exception's class only: messages can carry connection
strings, and the probe is unauthenticated.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from django.conf import settings
from django.core.cache import cache
from django.db import connection

# Two threads at most, shared: a check that overran keeps its thread until it returns,
# and the next probe's checks still run on the other (or wait their own bound).
_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="readyz")


def _database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return "ok"


def _cache() -> str:
    cache.set("readyz:probe", "1", 10)
    cache.get("readyz:probe")
    return "ok"


def _broker() -> str:
    url = getattr(settings, "CELERY_BROKER_URL", "")
    if not url:
        return "ok (no broker: tasks run in-process)"
    from celery import current_app

    with current_app.connection_for_write(url) as conn:
        conn.ensure_connection(max_retries=0, timeout=settings.READINESS_TIMEOUT)
    return "ok"


CHECKS: dict[str, Callable[[], str]] = {"database": _database, "cache": _cache, "broker": _broker}


def _bounded(check: Callable[[], str], timeout: float) -> tuple[bool, str]:
    future = _POOL.submit(check)
    try:
        return True, future.result(timeout=timeout)
    except FutureTimeout:
        return False, f"no answer within {timeout:g} s"
    except Exception as exc:  # noqa: BLE001 - any failure is the answer, named by class
        return False, type(exc).__name__


def readiness() -> tuple[bool, dict[str, dict]]:
    """(ready, {check: {"ok": bool, "detail": str}})."""
    timeout = float(settings.READINESS_TIMEOUT)
    results: dict[str, dict] = {}
    start = time.monotonic()
    try:  # on this thread: Django's connections are per thread
        detail = _database()
        ok = time.monotonic() - start <= timeout
        results["database"] = {"ok": ok, "detail": detail if ok else f"over {timeout:g} s"}
    except Exception as exc:  # noqa: BLE001
        results["database"] = {"ok": False, "detail": type(exc).__name__}
    for name in ("cache", "broker"):
        ok, detail = _bounded(CHECKS[name], timeout)
        results[name] = {"ok": ok, "detail": detail}
    return all(r["ok"] for r in results.values()), results
