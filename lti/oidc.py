"""OIDC login initiation (the first leg of every launch) and the state cookie.

pylti1p3's DjangoOIDCLogin builds the redirect to the platform. Two changes:
- the redirect_uri is always our own launch URL, never the `target_link_uri` the
  initiation names (django-lti redirects to that, which would send an id_token to any
  URL a login request names);
- the nonce issued is remembered against the state (`login_nonce_key`) so the launch can
  insist on exactly that nonce, once.
The state cookie is always `SameSite=None; Secure; HttpOnly; Partitioned`: an LMS frames
the tool, and a Lax cookie would not come back on the platform's cross-site form post;
Partitioned (CHIPS) keeps it working where third-party cookies are blocked, and the login
and the launch run in the same frame, so in the same partition (lti.framing).
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from django.conf import settings
from django.core.cache import cache
from pylti1p3.contrib.django import DjangoOIDCLogin
from pylti1p3.contrib.django.cookie import DjangoCookieService
from pylti1p3.contrib.django.request import DjangoRequest
from pylti1p3.contrib.django.session import DjangoSessionService

from lti.framing import cross_site_cookie


def login_nonce_key(state) -> str:
    return f"lti:login-nonce:{state}"


class CrossSiteCookieService(DjangoCookieService):
    def update_response(self, response):
        for key, data in self._cookie_data_to_set.items():
            response.set_cookie(
                key,
                data["value"],
                max_age=data["exp"],
                secure=True,
                httponly=True,
                samesite="None",
                path="/",
            )
            response.cookies[key] = cross_site_cookie(response.cookies[key])


class RememberingOIDCLogin(DjangoOIDCLogin):
    def _prepare_redirect_url(self, launch_url: str) -> str:
        url = super()._prepare_redirect_url(launch_url)
        query = parse_qs(urlsplit(url).query)
        cache.set(
            login_nonce_key(query["state"][0]),
            query["nonce"][0],
            settings.LTI_LOGIN_TIMEOUT_SECONDS,
        )
        return url


def oidc_login(request, tool_config) -> RememberingOIDCLogin:
    lti_request = DjangoRequest(request, post_only=request.method == "POST")
    return RememberingOIDCLogin(
        lti_request,
        tool_config,
        session_service=_NoSessionService(lti_request),
        cookie_service=CrossSiteCookieService(lti_request),
    )


class _NoSessionService(DjangoSessionService):
    """pylti1p3 would store the nonce in the Django session (a database row per login
    request, even for one that never launches); the nonce lives in the cache instead."""

    def save_nonce(self, nonce):
        return None

    def save_state_params(self, state, params):
        return None
