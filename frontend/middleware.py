"""Refuse a page request carrying a NUL character, with 400, before any view sees it.

No text a person types holds NUL, and PostgreSQL text cannot hold one: a view that looked
up or stored a posted value with it (the builder's course, a revocation's reason, an
instructor's username box, a certificate id in the path) answered 500 on PostgreSQL and
worked on SQLite. Forms validated by Django refuse NUL themselves; this closes the views
that read request.GET, request.POST or the path directly, all at once.

The API (/api/) is left to DRF, whose fields refuse NUL with a 400 in the API's error
format naming the field.
"""

from __future__ import annotations

from django.http import HttpResponseBadRequest

MESSAGE = "Bad request: the address or the form holds a NUL character, which no text may hold."


class RefuseNulMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not request.path.startswith("/api/") and _has_nul(request):
            return HttpResponseBadRequest(MESSAGE, content_type="text/plain; charset=utf-8")
        return self.get_response(request)


def _has_nul(request) -> bool:
    if "\x00" in request.path:
        return True
    sources = [request.GET] + ([request.POST] if request.method == "POST" else [])
    for data in sources:
        for key, values in data.lists():
            if "\x00" in key or any("\x00" in str(v) for v in values):
                return True
    return False
