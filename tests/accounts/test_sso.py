"""Single sign-on per organisation against a live OIDC provider (django-oauth-toolkit in a
subprocess, tests/accounts/idp/): discovery, the redirect to the provider, the callback,
the claims, a first sign-in making the account and its membership, a returning sign-in
finding it, and the personal API token of an account that has no password."""

from __future__ import annotations

import pytest
import requests
from allauth.socialaccount.models import SocialAccount
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.selectors import email_confirmed
from orgs.models import Membership
from tests.accounts.sso import member, query_of, register, sign_on
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db
User = get_user_model()


def test_the_provider_publishes_discovery_and_rs256_keys(provider):
    discovery = requests.get(f"{provider.issuer}/.well-known/openid-configuration", timeout=10)
    config = discovery.json()
    assert config["issuer"] == provider.issuer
    assert "RS256" in config["id_token_signing_alg_values_supported"]
    keys = requests.get(config["jwks_uri"], timeout=10).json()["keys"]
    assert [(k["kty"], k["alg"], k["use"]) for k in keys] == [("RSA", "RS256", "sig")]


def test_the_start_sends_the_browser_to_the_provider_with_state_and_pkce(client, provider):
    register(provider)
    page = client.get("/accounts/oidc/acme/login/")
    assert page.status_code == 200 and "Continue to Acme Corp" in page.content.decode()
    start = client.post("/accounts/oidc/acme/login/")
    assert start.status_code == 302
    assert start["Location"].startswith(f"{provider.issuer}/authorize/?")
    query = query_of(start["Location"])
    assert query["client_id"] == "burnin-acme" and query["response_type"] == "code"
    assert set(query["scope"].split()) == {"openid", "profile", "email"}
    assert query["redirect_uri"] == "http://testserver/accounts/oidc/acme/login/callback/"
    assert query["code_challenge_method"] == "S256" and query["code_challenge"]
    assert query["state"]


def test_a_first_sign_in_makes_the_account_and_its_membership(client, provider):
    organization = register(provider)
    done = sign_on(client, provider, "alice", next_url="/certify/")
    assert done.finish.status_code == 302 and done.finish["Location"] == "/certify/"
    user = User.objects.get(email="alice@acme.example")
    assert client.session["_auth_user_id"] == str(user.pk)
    # The claims: the provider's subject, its verified address, the name it gave.
    account = SocialAccount.objects.get(user=user)
    assert account.provider == "acme" and account.uid == account.extra_data["id_token"]["sub"]
    assert (user.username, user.first_name, user.last_name) == ("alice", "Alice", "Archer")
    assert not user.has_usable_password()
    assert user.emailaddress_set.get().verified
    assert Membership.objects.get(user=user).organization == organization
    assert email_confirmed(user=user)  # single sign-on accounts start exams at once

    # A returning sign-in finds the same account; nothing new is made.
    client.logout()
    again = sign_on(client, provider, "alice")
    assert again.finish.status_code == 302
    assert User.objects.filter(email="alice@acme.example").count() == 1
    assert SocialAccount.objects.count() == 1 and Membership.objects.count() == 1
    assert client.session["_auth_user_id"] == str(user.pk)


def test_the_company_sign_in_page_finds_the_provider_by_the_work_address(client, provider):
    register(provider)
    found = client.post("/accounts/sso/", {"email": "Alice@ACME.example", "next": "/quizzes/"})
    assert found.status_code == 302
    assert found["Location"] == "/accounts/oidc/acme/login/?next=%2Fquizzes%2F"
    unknown = client.post("/accounts/sso/", {"email": "someone@nowhere.example"})
    assert unknown.status_code == 200
    assert "No organisation signs in people at nowhere.example" in unknown.content.decode()


def test_sign_up_closed_still_lets_an_organisations_people_in(settings, client, provider):
    settings.SIGNUP_OPEN = False
    register(provider)
    assert sign_on(client, provider, "alice").finish.status_code == 302
    assert User.objects.filter(email="alice@acme.example").exists()


def test_a_member_with_an_account_already_is_joined_to_it(client, provider):
    """A member made by staff before single sign-on: the provider's verified address
    finds them, as the organisation's own member."""
    organization = register(provider)
    bob = UserFactory(username="bob-local", email="bob@acme.example")
    member(organization, bob)
    done = sign_on(client, provider, "bob")
    assert done.finish.status_code == 302
    assert client.session["_auth_user_id"] == str(bob.pk)
    assert SocialAccount.objects.get().user == bob
    assert User.objects.filter(email__iexact="bob@acme.example").count() == 1


def test_a_signed_in_person_connects_their_company_sign_in_and_joins(client, provider):
    """A password account (not yet a member, its address the provider's) connects from
    the company sign-in page while signed in: its own account gets the provider account
    and the membership; no second account is made."""
    organization = register(provider)
    bob = UserFactory(username="bob-local", email="bob@acme.example")
    client.force_login(bob)
    found = client.post("/accounts/sso/", {"email": "bob@acme.example"})
    assert found["Location"] == "/accounts/oidc/acme/login/?process=connect"
    done = sign_on(client, provider, "bob", query="process=connect")
    assert done.finish.status_code == 302 and done.finish["Location"] == "/accounts/3rdparty/"
    assert SocialAccount.objects.get().user == bob
    assert Membership.objects.get(user=bob).organization == organization
    assert User.objects.filter(email__iexact="bob@acme.example").count() == 1
    client.logout()
    assert sign_on(client, provider, "bob").finish.status_code == 302  # now by the provider
    assert client.session["_auth_user_id"] == str(bob.pk)


def test_the_personal_token_page_issues_a_token_after_a_single_sign_on(client, provider):
    register(provider)
    sign_on(client, provider, "alice")
    page = client.get("/accounts/token/").content.decode()
    assert "Show my API token" in page
    issued = client.post("/accounts/token/")
    assert issued.status_code == 200 and "no-store" in issued["Cache-Control"]
    key = issued.context["token"].key
    assert key in issued.content.decode()
    api = APIClient()
    assert api.get("/api/me/mastery/", HTTP_AUTHORIZATION=f"Token {key}").status_code == 200


def test_the_personal_token_page_asks_a_password_account_to_use_the_endpoint(client):
    user = UserFactory(username="ada")
    client.force_login(user)
    refused = client.post("/accounts/token/")
    assert refused.status_code == 302 and refused["Location"] == "/accounts/token/"
    assert not Token.objects.filter(user=user).exists()
    assert "POST /api/auth/token/" in client.get("/accounts/token/").content.decode()


# ------------------------------------------------------------ organisations requiring it


REFUSAL = "signs its members in through its own identity provider"


@pytest.fixture
def required(provider):
    """Acme requires single sign-on; bob is its member with a password of his own."""
    organization = register(provider, required=True)
    bob = UserFactory(username="bob-local", email="bob@acme.example")
    member(organization, bob)
    return bob


def test_password_sign_in_is_refused_for_members_with_a_clear_message(client, required):
    for typed in ("bob-local", "bob@acme.example"):
        page = client.post("/accounts/login/", {"login": typed, "password": PASSWORD})
        assert page.status_code == 200 and REFUSAL in page.content.decode()
        assert "_auth_user_id" not in client.session
    token = APIClient().post(
        "/api/auth/token/", {"username": "bob-local", "password": PASSWORD}, format="json"
    )
    assert token.status_code == 400
    [error] = token.json()["errors"]
    assert error["code"] == "authorization" and REFUSAL in error["detail"]
    # A wrong password is told only that it is wrong: the message says nothing to guessers.
    wrong = client.post("/accounts/login/", {"login": "bob-local", "password": "guess"})
    assert REFUSAL not in wrong.content.decode()


def test_staff_who_are_members_sign_in_to_the_admin_through_the_provider_too(client, required):
    required.is_staff = True
    required.save()
    page = client.post("/admin/login/", {"username": "bob-local", "password": PASSWORD})
    assert page.status_code == 200 and REFUSAL in page.content.decode()


def test_a_non_member_keeps_signing_in_with_a_password(client, required):
    UserFactory(username="outsider", email="outsider@acme.example")
    response = client.post("/accounts/login/", {"login": "outsider", "password": PASSWORD})
    assert response.status_code == 302


def test_members_sign_in_through_the_provider_and_get_their_token(client, provider, required):
    done = sign_on(client, provider, "bob")
    assert done.finish.status_code == 302
    assert client.session["_auth_user_id"] == str(required.pk)
    assert client.post("/accounts/token/").status_code == 200
