"""One log line per request (config.logging): its request id, method, route pattern,
status, duration and the user's id, never the path (a password reset's key rides in it)
nor anything from the body. The request id is the client's X-Request-ID when it looks
like one (a proxy's, up to 64 letters, digits, dashes or underscores), else a new one; it
is bound for every line logged meanwhile, handed to the tasks the request queues
(config.task_signals) and sent back in the response's X-Request-ID."""

from __future__ import annotations

import re
import time
import uuid

import structlog
from django.utils.functional import SimpleLazyObject, empty

from config.metrics_middleware import route_of

log = structlog.get_logger("burnin.request")
REQUEST_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def request_id_of(request) -> str:
    given = request.headers.get("X-Request-ID", "")
    return given if REQUEST_ID.fullmatch(given) else uuid.uuid4().hex


def _user_id(request) -> int | None:
    """The user's id if the request found out who it is. The log never asks itself: the
    session's and the user's reads would be queries the request did not make, and on a
    database that has just gone away a 500 after the view had answered 503 (a chaos run
    caught one)."""
    user = getattr(request, "user", None)
    if isinstance(user, SimpleLazyObject) and user._wrapped is empty:
        return None
    return user.pk if user is not None and user.is_authenticated else None


class RequestLogMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request_id = request_id_of(request)
        request.request_id = request_id
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(request_id=request_id)
        start = time.perf_counter()
        try:
            response = self.get_response(request)
            response["X-Request-ID"] = request_id
            log.info(
                "request",
                method=request.method,
                route=route_of(request),
                status=response.status_code,
                duration_ms=round((time.perf_counter() - start) * 1000, 1),
                user_id=_user_id(request),
            )
            return response
        finally:
            structlog.contextvars.clear_contextvars()
