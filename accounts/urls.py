"""Every account route, under /accounts/: allauth's account and socialaccount pages (its
own views, each credential form behind the sign-in throttles, attached by route name),
the OIDC sign-on of an organisation's provider (accounts.oidc), the pages that are ours,
and redirects from the addresses the pages had before allauth.

allauth's top-level URLconf (allauth.urls) is not used: it would add every installed
provider's routes and deprecated redirects; this module says which routes exist.
"""

from __future__ import annotations

from allauth.account import urls as account_urls
from allauth.socialaccount import urls as social_urls
from django.urls import URLPattern, include, path
from django.views.generic import RedirectView

from accounts import oidc, views
from api_common.throttles import (
    IP_THROTTLES,
    PASSWORD_RESET_THROTTLES,
    SIGN_IN_THROTTLES,
    SIGN_UP_THROTTLES,
    throttle_posts,
)

# Route name -> the throttles its POSTs pass first (api_common/throttles.py).
THROTTLED = {
    "account_login": SIGN_IN_THROTTLES,
    "account_reauthenticate": SIGN_IN_THROTTLES,
    "account_change_password": SIGN_IN_THROTTLES,
    "account_set_password": SIGN_IN_THROTTLES,
    "account_reset_password": PASSWORD_RESET_THROTTLES,
    "account_reset_password_from_key": IP_THROTTLES,
    "account_signup": SIGN_UP_THROTTLES,
    "socialaccount_signup": SIGN_UP_THROTTLES,
}


# Route name -> our view in place of allauth's: its failed sign-on page answers 401
# without the WWW-Authenticate header HTTP asks of a 401; ours is the 403 of a refusal.
# Its sign-out, ours, also clears what the site stored in the browser (answer drafts).
REPLACED = {
    "socialaccount_login_error": views.sign_on_failed,
    "account_logout": views.sign_out,
}


def _ours(patterns: list) -> list:
    """allauth's routes with THROTTLED's throttles and REPLACED's views."""
    out = []
    for pattern in patterns:
        name = getattr(pattern, "name", None)
        callback = REPLACED.get(name, pattern.callback)
        if name in THROTTLED:
            callback = throttle_posts(*THROTTLED[name])(callback)
        if callback is not pattern.callback:
            pattern = URLPattern(pattern.pattern, callback, pattern.default_args, name)
        out.append(pattern)
    return out


def _redirect(name: str) -> RedirectView:
    return RedirectView.as_view(pattern_name=name, permanent=True, query_string=True)


urlpatterns = [
    path("sso/", throttle_posts(*IP_THROTTLES)(views.company_sign_in), name="company-sign-in"),
    path("token/", views.personal_token, name="personal-token"),
    path(
        "oidc/<str:provider_id>/",
        include(
            [
                path("login/", oidc.login, name="openid_connect_login"),
                path("login/callback/", oidc.callback, name="openid_connect_callback"),
            ]
        ),
    ),
    # The addresses of the reset pages before allauth (links in old mail, bookmarks).
    path(
        "password-reset/",
        _redirect("account_reset_password"),
        name="password-reset-before-allauth",
    ),
    path(
        "password-reset/sent/",
        _redirect("account_reset_password_done"),
        name="password-reset-sent-before-allauth",
    ),
    path(
        "reset/<uidb64>/<token>/",
        views.reset_link_before_allauth,
        name="password-reset-link-before-allauth",
    ),
    path("reset/done/", _redirect("account_login"), name="password-reset-done-before-allauth"),
    path("", include(_ours(account_urls.urlpatterns))),
    path("3rdparty/", include(_ours(social_urls.urlpatterns))),
]
