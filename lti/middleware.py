"""Keeps a session started by an LTI launch working inside the LMS's iframe.

The launch (lti.views) marks the session with the launching platform's origins
(`lti.framing.FRAME_ORIGINS`). For requests of such a session only:
- the session and CSRF cookies, whenever set (or deleted), are re-sent as
  `SameSite=None; Secure; Partitioned` (why: `lti.framing.cross_site_cookie`): with
  the default Lax they would not come back in a cross-site frame, so the learner would
  be signed out and every form refused;
- the pages the launch leads to (`lti.framing.FRAMEABLE_IN_LTI`) lose X-Frame-Options
  and have the frame-ancestors of their content security policy (django-csp's
  `'none'`, which agrees with DENY) replaced by the platform's origins, naming only
  origins whose registration is still active (none left: the page stays DENY and
  `'none'`). A response whose view set its own framing (`lti_frameable`, Django's
  xframe_options_exempt) is left as it is.
Anything else, every ordinary session included, passes through unchanged.

Place it before SessionMiddleware and django-csp's CSPMiddleware: its response half then
runs after the session, CSRF, X-Frame-Options and CSP middlewares have set their cookies
and headers."""

from __future__ import annotations

from django.conf import settings
from django.utils.cache import patch_vary_headers

from lti.framing import (
    FRAME_ORIGINS,
    FRAMEABLE_IN_LTI,
    cross_site_cookie,
    platform_origins,
    with_frame_ancestors,
)


def _marked_origins(request) -> list[str] | None:
    session = getattr(request, "session", None)
    if session is None or settings.SESSION_COOKIE_NAME not in request.COOKIES:
        return None  # no session yet: nothing to read (and no session to create)
    accessed = session.accessed
    origins = session.get(FRAME_ORIGINS)
    session.accessed = accessed  # a look of ours alone adds no `Vary: Cookie`
    return origins


class LtiFrameMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def process_view(self, request, view, args, kwargs):
        # Read before the view: signing out flushes the mark, and the cookie's deletion
        # must still be partitioned to reach the cookie.
        request.lti_frame_origins = _marked_origins(request)

    def __call__(self, request):
        response = self.get_response(request)
        session = getattr(request, "session", None)
        origins = (session.get(FRAME_ORIGINS) if session is not None else None) or getattr(
            request, "lti_frame_origins", None
        )
        if not origins:
            return response
        for name in (settings.SESSION_COOKIE_NAME, settings.CSRF_COOKIE_NAME):
            if name in response.cookies:
                response.cookies[name] = cross_site_cookie(response.cookies[name])
        self._allow_framing(request, response, origins)
        patch_vary_headers(response, ("Cookie",))
        return response

    @staticmethod
    def _allow_framing(request, response, origins: list[str]) -> None:
        match = getattr(request, "resolver_match", None)
        if match is None or match.url_name not in FRAMEABLE_IN_LTI:
            return
        if getattr(response, "xframe_options_exempt", False):
            return
        csp = response.get("Content-Security-Policy", "")
        active = set(platform_origins())
        allowed = [origin for origin in origins if origin in active]
        if not allowed:
            return
        response["Content-Security-Policy"] = with_frame_ancestors(csp, allowed)
        if "X-Frame-Options" in response:
            del response["X-Frame-Options"]
