"""The account pages, for the page-wide checks (content security policy, accessibility):
every allauth page this site shows and the account pages of our own, each as the
person who would see it."""

from __future__ import annotations

from allauth.account.forms import default_token_generator
from allauth.account.models import EmailAddress, EmailConfirmationHMAC
from allauth.account.utils import user_pk_to_url_str
from django.test import Client

from accounts.services import sign_up_record
from orgs.services import member_add, organization_create
from orgs.sso import ProviderSettings, identity_provider_save
from tests.factories import UserFactory

SIGNED_OUT = (
    "/accounts/login/",
    "/accounts/signup/",
    "/accounts/password/reset/",
    "/accounts/password/reset/done/",
    "/accounts/sso/",
    "/quizzes/",
)
SIGNED_IN = (
    "/accounts/email/",
    "/accounts/password/change/",
    "/accounts/token/",
    "/accounts/data/",
    "/accounts/delete/",
    "/accounts/3rdparty/",
    "/accounts/logout/",
)


def unconfirmed_sign_up(username: str = "newcomer", email: str = "newcomer@example.com"):
    """An account as sign-up leaves it: an unverified address and an open SignUp."""
    user = UserFactory(username=username, email="")
    user.email = email
    user._allauth_sets_up_email = True
    user.save()
    EmailAddress.objects.create(user=user, email=email, verified=False, primary=True)
    sign_up_record(user=user, confirmed=False)
    return user


def confirmation_url(user) -> str:
    address = EmailAddress.objects.get(user=user, verified=False)
    return f"/accounts/confirm-email/{EmailConfirmationHMAC(address).key}/"


def reset_url(user) -> str:
    key = f"{user_pk_to_url_str(user)}-{default_token_generator.make_token(user)}"
    return f"/accounts/password/reset/key/{key}/"


def account_pages(learner) -> dict:
    """{label: response} of every account page, rendered as its visitor sees it."""
    out = {}
    anonymous = Client()
    for url in SIGNED_OUT:
        out["anonymous:" + url] = anonymous.get(url)
    newcomer = unconfirmed_sign_up()
    out["confirm-email"] = anonymous.get(confirmation_url(newcomer))
    out["reset-from-key"] = anonymous.get(reset_url(learner), follow=True)
    signed_in = Client()
    signed_in.force_login(learner)
    for url in SIGNED_IN:
        out["learner:" + url] = signed_in.get(url)
    unconfirmed = Client()
    unconfirmed.force_login(newcomer)
    out["newcomer:/accounts/email/"] = unconfirmed.get("/accounts/email/")
    out["newcomer:/quizzes/"] = unconfirmed.get("/quizzes/")
    # An organisation's single sign-on: staff's page, and the page that starts it.
    organization = organization_create(slug="pages-org", name="Pages Org")
    identity_provider_save(
        actor=None,
        organization=organization,
        values=ProviderSettings(
            issuer="https://idp.pages.example",
            client_id="pages",
            client_secret="pages-secret",
            domains=("pages.example",),
            required=False,
        ),
    )
    staff = Client()
    staff.force_login(UserFactory(username="pages-staff", is_staff=True))
    out["staff:organization-sso"] = staff.get("/organisations/pages-org/sign-in/")
    member_add(organization=organization, user=learner)
    out["staff:organization-members"] = staff.get("/organisations/pages-org/members/")
    out["anonymous:sign-on start"] = anonymous.get("/accounts/oidc/pages-org/login/")
    return out
