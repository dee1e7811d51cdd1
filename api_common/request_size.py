"""A request body over DATA_UPLOAD_MAX_MEMORY_SIZE (Django's 2.5 MB) is a 413, answered
before anything parses it.

Django refuses such a body only when something first reads it (`request.body`,
`request.POST`), by raising RequestDataTooBig there: in the token endpoint's throttle,
which reads the posted username, that was a 500, anonymous included; in a page's
middleware, a bare 400. Here the declared Content-Length is compared with the same
setting before any middleware or view reads a byte of it: the API answers in its error format
(`client_error`, code `request_too_large`, documented on every operation), a page with
the site's 413 page. Nothing of the body is parsed or kept.

The body is still drained (read and dropped) before answering, up to DRAIN_BYTES and
DRAIN_SECONDS: a server that answers and closes with the body unread makes the kernel
reset the connection, and a client that sends its whole body before reading (urllib,
requests, http.client; found over gunicorn) then sees a broken pipe, never the 413.
Past either bound the answer goes out undrained: a client sending 10 MB and more, or
dripping it, may see the connection cut instead, and the worker is free again.

A body without a Content-Length (chunked) is read by Django as empty, and no route takes
file uploads (which Django keeps out of the limit), so no body Django would accept is
refused here, and no RequestDataTooBig is left to raise.
"""

from __future__ import annotations

import time

from django.conf import settings
from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string

CODE = "request_too_large"
DRAIN_BYTES = 10 * 2**20
DRAIN_SECONDS = 5.0
_CHUNK = 64 * 1024


def limit_text(limit: int) -> str:
    """2621440 -> "2.5 MB"."""
    return f"{limit / 2**20:g} MB"


def detail(limit: int) -> str:
    return (
        f"The request body is larger than {limit_text(limit)} ({limit:,} bytes), the most "
        "this service takes; none of it was used or saved."
    )


def declared_length(request) -> int:
    """Content-Length as Django reads it: absent or unreadable is 0."""
    try:
        return max(int(request.META.get("CONTENT_LENGTH") or 0), 0)
    except ValueError:
        return 0


class RefuseLargeBodyMiddleware:
    """Placed before every middleware that reads the body (settings.MIDDLEWARE)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        length = declared_length(request)
        if limit is not None and length > limit:
            drain(request, length)
            return too_large(request, limit)
        return self.get_response(request)


def drain(request, length: int) -> int:
    """Read and drop the body, within DRAIN_BYTES and DRAIN_SECONDS; bytes read."""
    if length > DRAIN_BYTES:
        return 0
    read, deadline = 0, time.monotonic() + DRAIN_SECONDS
    while read < length and time.monotonic() < deadline:
        try:
            chunk = request.read(min(_CHUNK, length - read))
        except OSError:  # the client went away (Django's UnreadablePostError)
            break
        if not chunk:
            break
        read += len(chunk)
    return read


def too_large(request, limit: int) -> HttpResponse:
    if request.path.startswith("/api/"):
        error = {"code": CODE, "detail": detail(limit), "attr": None}
        return JsonResponse({"type": "client_error", "errors": [error]}, status=413)
    page = render_to_string("413.html", {"limit": limit_text(limit)})
    return HttpResponse(page, status=413, content_type="text/html; charset=utf-8")
