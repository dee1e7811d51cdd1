"""GET /metrics: Prometheus' text format (frontend.metrics), for the networks in
METRICS_ALLOWED_NETWORKS or a client with the METRICS_TOKEN bearer token; 403 for
anyone else (not a 404: the operator probing from the wrong place learns why)."""

from __future__ import annotations

import hmac
import ipaddress

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST

from frontend.metrics import exposition


def _allowed(request: HttpRequest) -> bool:
    token = settings.METRICS_TOKEN
    header = request.headers.get("Authorization", "")
    if token and hmac.compare_digest(header.encode(), f"Bearer {token}".encode()):
        return True
    try:
        address = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    return any(
        address in ipaddress.ip_network(n, strict=False) for n in settings.METRICS_ALLOWED_NETWORKS
    )


@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    if not _allowed(request):
        return HttpResponseForbidden(
            "Metrics are for the monitoring network or METRICS_TOKEN.", content_type="text/plain"
        )
    return HttpResponse(exposition(), content_type=CONTENT_TYPE_LATEST)
