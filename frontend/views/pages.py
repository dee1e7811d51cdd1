"""Pages. Views stay thin: they read through selectors or the catalog and render."""

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from frontend.readiness import readiness
from hardware_db import catalog


def home(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "frontend/home.html",
        {
            "accelerators": catalog.accelerators(),
            "models": catalog.models(),
            "links": catalog.links(),
            "servers": catalog.servers(),
        },
    )


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness and database reachability, for the container health check."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})


def readyz(request: HttpRequest) -> JsonResponse:
    """Readiness: the database, the cache and the broker each answer within a bound
    (frontend.readiness); 503 names what did not."""
    ready, checks = readiness()
    body = {"status": "ready" if ready else "not ready", "checks": checks}
    if not ready:
        body["failed"] = [name for name, r in checks.items() if not r["ok"]]
    return JsonResponse(body, status=200 if ready else 503)
