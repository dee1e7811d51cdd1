"""Times every request and counts its database queries (config.metrics): the outermost
middleware, so the figure is what the client waited for inside the process."""

from __future__ import annotations

import time

from django.db import connection

from config.metrics import DB_QUERY_SECONDS, REQUEST_QUERIES, REQUEST_SECONDS, QueryTimer


def route_of(request) -> str:
    match = getattr(request, "resolver_match", None)
    if match is None:
        return "unmatched"
    return "/" + match.route if match.route else (match.view_name or "unmatched")


class MetricsMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        start = time.perf_counter()
        timer = QueryTimer()
        with connection.execute_wrapper(timer):
            response = self.get_response(request)
        route = route_of(request)
        REQUEST_SECONDS.labels(route, request.method, str(response.status_code)).observe(
            time.perf_counter() - start
        )
        REQUEST_QUERIES.labels(route).observe(timer.count)
        DB_QUERY_SECONDS.labels(route).inc(timer.seconds)
        return response
