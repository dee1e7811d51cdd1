"""LMSs show the tool in an iframe. LTI responses drop X-Frame-Options (which cannot name
an origin) and send `Content-Security-Policy: frame-ancestors` naming the origins of the
active registrations (issuer and login URL), and nothing else."""

from __future__ import annotations

from functools import wraps
from urllib.parse import urlsplit

from lti_tool.models import LtiRegistration


def platform_origins() -> list[str]:
    origins = set()
    for issuer, auth_url in LtiRegistration.objects.active().values_list("issuer", "auth_url"):
        for url in (issuer, auth_url):
            parts = urlsplit(url)
            if parts.scheme in ("http", "https") and parts.netloc:
                origins.add(f"{parts.scheme}://{parts.netloc}")
    return sorted(origins)


def frame_ancestors_header() -> str:
    return "frame-ancestors " + (" ".join(platform_origins()) or "'none'")


def lti_frameable(view):
    @wraps(view)
    def wrapped(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        response.xframe_options_exempt = True
        response["Content-Security-Policy"] = frame_ancestors_header()
        return response

    return wrapped
