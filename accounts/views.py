"""The account pages that are ours (allauth's are in accounts/urls.py): signing in with
your company, the personal API token of a single sign-on account, and the old reset
links' new home."""

from __future__ import annotations

from allauth.account.views import logout as allauth_logout
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.views.decorators.cache import never_cache

from accounts.adapters import refusal_page
from accounts.forms import CompanySignInForm
from accounts.selectors import signed_in_by_sso_within
from accounts.tokens import token_issue
from api_common.authentication import token_expires_at
from orgs.sso import identity_provider_for_email, identity_provider_of

# A personal token is issued within this long of a single sign-on (seconds): the page is
# the SSO account's password prompt, so it asks for a fresh sign-in, not a session.
TOKEN_SIGN_ON_WINDOW = 15 * 60


def _next_url(request) -> str:
    wanted = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(wanted, {request.get_host()}, request.is_secure()):
        return wanted
    return ""


def provider_login_url(provider, next_url: str = "", *, connect: bool = False) -> str:
    """The provider's sign-on page; `connect` joins it to the signed-in account instead
    of signing in as whoever the provider says."""
    url = reverse("openid_connect_login", kwargs={"provider_id": provider.app.provider_id})
    query = {"next": next_url} if next_url else {}
    if connect:
        query["process"] = "connect"
    return f"{url}?{urlencode(query)}" if query else url


def company_sign_in(request):
    """Your work address finds your organisation's identity provider; the provider's own
    page (allauth's, one button) then sends you there."""
    form = CompanySignInForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        provider = identity_provider_for_email(form.cleaned_data["email"])
        if provider is not None:
            connect = request.user.is_authenticated
            return redirect(provider_login_url(provider, _next_url(request), connect=connect))
        domain = form.cleaned_data["email"].rpartition("@")[2]
        form.add_error(
            "email",
            f"No organisation signs in people at {domain} here. Sign in with your "
            "username and password, or ask your manager whether your organisation "
            "has set up single sign-on.",
        )
    context = {"form": form, "next": _next_url(request)}
    return render(request, "account/company_sign_in.html", context)


@never_cache
@login_required
def personal_token(request):
    """The API token of an account that signs in through its organisation (POST
    /api/auth/token/ takes a password it does not have): issued on a POST within
    TOKEN_SIGN_ON_WINDOW of a single sign-on in this session, shown once on the page.
    The same token as the endpoint's (accounts.tokens.token_issue): one per
    account, revoked by a password change or DELETE /api/auth/token/."""
    fresh = signed_in_by_sso_within(request, TOKEN_SIGN_ON_WINDOW)
    token = expires_at = None
    if request.method == "POST" and fresh:
        token = token_issue(user=request.user)
        expires_at = token_expires_at(token.created)
    elif request.method == "POST":
        messages.error(request, "Sign in through your organisation again to get a token.")
        return redirect("personal-token")
    provider = identity_provider_of(user=request.user)
    context = {
        "fresh": fresh,
        "token": token,
        "expires_at": expires_at,
        "ttl_days": settings.API_TOKEN_TTL.days,
        "sign_on_url": provider_login_url(provider, reverse("personal-token"))
        if provider is not None
        else "",
        "organization": provider.organization if provider is not None else None,
        "minutes": TOKEN_SIGN_ON_WINDOW // 60,
    }
    return render(request, "account/personal_token.html", context)


def reset_link_before_allauth(request, uidb64: str, token: str):
    """A reset link mailed before the site moved to allauth: its token is of a form
    the new reset does not read, so it sends you to ask for a new one."""
    messages.info(request, "That reset link is no longer valid: ask for a new one below.")
    return redirect("account_reset_password")


def sign_on_failed(request):
    """A single sign-on that failed (allauth's login-error address): the same refusal
    page as every other, 403."""
    return refusal_page(request, "the sign-on did not complete")


def sign_out(request, *args, **kwargs):
    """allauth's sign-out, and the browser told to forget what this site keeps in it
    (`Clear-Site-Data: "storage"`): the answers typed but not yet saved
    (frontend/static/frontend/drafts.js) belong to the person leaving, and the next one at
    this browser must not find them. Whatever page the sign-out was sent from."""
    response = allauth_logout(request, *args, **kwargs)
    if request.method == "POST":
        response["Clear-Site-Data"] = '"storage"'
    return response
