"""A person's own data, on their account pages: "Download my data" (one JSON document,
privacy.export) and "Delete my account" (anonymised in place,
privacy.erasure).

Deleting asks the person to prove it is them, now: an account with a password types it
(the form's POSTs pass the sign-in throttles' per-address budget); an account that signs
in only through its organisation signs in there again (a single sign-on within
REAUTH_WINDOW in this session, as the personal token page asks: allauth's
re-authentication knows only passwords and codes). An account with neither (an LMS
launch) sets a password first.
"""

from __future__ import annotations

import json

from django import forms
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache

from accounts.selectors import signed_in_by_sso_within
from accounts.views import provider_login_url
from api_common.throttles import IP_THROTTLES, throttle_posts
from orgs.sso import identity_provider_of
from privacy.erasure import account_anonymise
from privacy.export import personal_data

REAUTH_WINDOW = 15 * 60  # seconds since a single sign-on that count as "now"


def export_response(user) -> HttpResponse:
    """The document as a download named after the account and the day."""
    body = json.dumps(personal_data(user=user), indent=2, ensure_ascii=False)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    name = f"burn-in-data-{user.get_username()}-{timezone.now():%Y-%m-%d}.json"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@login_required
def my_data(request):
    return render(request, "account/my_data.html", {})


@never_cache
@login_required
def my_data_download(request):
    """A GET that writes nothing (the access matrix's read sweep holds it to that)."""
    return export_response(request.user)


class DeleteAccountForm(forms.Form):
    password = forms.CharField(
        label="Your password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError("That is not your password.", code="password")
        return password


@never_cache
@throttle_posts(*IP_THROTTLES)
@login_required
def account_delete(request):
    user = request.user
    has_password = user.has_usable_password()
    provider = None if has_password else identity_provider_of(user=user)
    fresh_sso = provider is not None and signed_in_by_sso_within(request, REAUTH_WINDOW)
    form = DeleteAccountForm(request.POST or None, user=user) if has_password else None
    if request.method == "POST":
        confirmed = form.is_valid() if form is not None else fresh_sso
        if confirmed:
            account_anonymise(actor=user, user=user)
            logout(request)
            messages.success(request, "Your account is deleted. Thank you for practising here.")
            return redirect("home")
        if form is None:
            messages.error(request, "Sign in through your organisation again to confirm.")
            return redirect("account-delete")
    sign_on_url = ""
    if provider is not None:
        sign_on_url = provider_login_url(provider, reverse("account-delete"))
    context = {
        "form": form,
        "provider": provider,
        "fresh_sso": fresh_sso,
        "sign_on_url": sign_on_url,
        "minutes": REAUTH_WINDOW // 60,
    }
    return render(request, "account/delete.html", context)
