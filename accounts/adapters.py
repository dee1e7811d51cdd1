"""allauth's adapters: what this site decides where allauth asks.

AccountAdapter: sign-up is open unless SIGNUP_OPEN is off; an account allauth makes sets
up its own email rows (so accounts.receivers leaves them alone).

SocialAccountAdapter: single sign-on through an organisation's identity provider. The
claims were checked before any row was read or written (accounts.oidc: issuer, audience,
expiry, signature, a verified address within the organisation's domains); here a first
sign-in makes the account and its membership of the organisation, whatever SIGNUP_OPEN
says, and an address that already has an account is joined to it only when that account
is already a member of the organisation; otherwise the sign-in is refused and nothing is
written. A signed-in person connecting their company sign-in (allauth's connect) joins
it to their own account, and so becomes a member (accounts.receivers). Every refusal
(here, in accounts.oidc and allauth's own: a wrong audience, an expired token) is the
same 403 page and a log line.
"""

from __future__ import annotations

import logging

from allauth.account.adapter import DefaultAccountAdapter
from allauth.account.utils import filter_users_by_email
from allauth.core.exceptions import ImmediateHttpResponse
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from allauth.socialaccount.providers.base import AuthError
from django.db import transaction
from django.shortcuts import render

from accounts.services import ALLAUTH_SETS_UP_EMAIL
from orgs.models import Membership
from orgs.selectors import manager_landing
from orgs.services import member_add
from orgs.sso import identity_provider_for

log = logging.getLogger(__name__)


def refusal_page(request, reason: str, *, organization=None, status=403, detail=""):
    """The refusal page (in the site's layout) saying why, and a warning in the log with
    the detail the page leaves out (an exception's text)."""
    log.warning("single sign-on refused: %s %s", reason, detail)
    context = {"reason": reason, "organization": organization}
    return render(request, "socialaccount/refused.html", context, status=status)


def refuse_sign_on(request, reason: str, *, organization=None, status=403, detail=""):
    """Stop a single sign-on here with the refusal page. Nothing has been written."""
    raise ImmediateHttpResponse(
        refusal_page(request, reason, organization=organization, status=status, detail=detail)
    )


class AccountAdapter(DefaultAccountAdapter):
    def save_user(self, request, user, form, commit=True):
        setattr(user, ALLAUTH_SETS_UP_EMAIL, True)
        return super().save_user(request, user, form, commit=commit)

    def get_login_redirect_url(self, request):
        """Where a sign-in with no `next` lands: a manager on their team's readiness
        (their teams' list when they manage several), everyone else on their dashboard
        (LOGIN_REDIRECT_URL). Staff keep the dashboard: they manage every team."""
        landing = manager_landing(user=request.user)
        return landing or super().get_login_redirect_url(request)


class SocialAccountAdapter(DefaultSocialAccountAdapter):
    def is_open_for_signup(self, request, sociallogin) -> bool:
        """An organisation's provider makes accounts for its people even where self
        sign-up is closed: the organisation vouched for them."""
        return identity_provider_for(provider_id=sociallogin.account.provider) is not None

    def pre_social_login(self, request, sociallogin) -> None:
        provider = identity_provider_for(provider_id=sociallogin.account.provider)
        if provider is None:
            refuse_sign_on(request, "no organisation signs in through this provider")
        if sociallogin.is_existing:
            return
        if sociallogin.state.get("process") == "connect" and request.user.is_authenticated:
            return  # joined to the signed-in account, which proved itself (allauth's connect)
        email = sociallogin.user.email if sociallogin.user else ""
        holders = filter_users_by_email(email) if email else []
        if not holders:
            return
        organization = provider.organization
        [existing, *others] = holders
        member = Membership.objects.filter(organization=organization, user=existing)
        if not others and member.exists():
            # The organisation's own member, by the address the provider verified.
            sociallogin.connect(request, existing)
            return
        refuse_sign_on(
            request,
            "an account that is not a member of the organisation already uses this address",
            organization=organization,
        )

    def on_authentication_error(
        self, request, provider, error=None, exception=None, extra_context=None
    ) -> None:
        organization = None
        app = getattr(provider, "app", None)
        if app is not None:
            found = identity_provider_for(provider_id=app.provider_id)
            organization = found.organization if found is not None else None
        if error == AuthError.CANCELLED:
            reason = "you left the provider's sign-in before it finished"
        elif exception is None:
            reason = "the provider's answer did not belong to a sign-in started here"
        else:
            reason = (
                "the provider's answer did not check out (its ID token's issuer, audience, "
                "expiry or signature, or the code)"
            )
        detail = f"{error}: {exception!r}"
        refuse_sign_on(request, reason, organization=organization, detail=detail)

    def save_user(self, request, sociallogin, form=None):
        """A first sign-in: the account (no password: it signs in through its
        organisation), its provider account, its verified address and its membership,
        in one transaction."""
        setattr(sociallogin.user, ALLAUTH_SETS_UP_EMAIL, True)
        with transaction.atomic():
            user = super().save_user(request, sociallogin, form=form)
            provider = identity_provider_for(provider_id=sociallogin.account.provider)
            if provider is not None:
                member_add(organization=provider.organization, user=user)
        return user

    def populate_user(self, request, sociallogin, data):
        """A username from the provider's preferred_username, else the address's local
        part; allauth makes it unique."""
        user = super().populate_user(request, sociallogin, data)
        if not user.username and user.email:
            user.username = user.email.partition("@")[0]
        return user
