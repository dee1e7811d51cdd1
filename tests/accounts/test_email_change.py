"""Changing one's email address: confirmed by a link to the new address before it takes
the old one's place (a notice goes to the old one); until then the account's address,
for resets and notices, is the old one, which still signs in."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from django.test import Client

from tests.accounts.conftest import last_link_to
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db


def sign_in(login: str) -> int:
    return Client().post("/accounts/login/", {"login": login, "password": PASSWORD}).status_code


def test_a_change_waits_for_the_new_address_to_confirm(client):
    user = UserFactory(username="ada", email="ada@old.example")
    client.force_login(user)
    r = client.post("/accounts/email/", {"email": "ada@new.example", "action_add": ""})
    assert r.status_code == 302 and r["Location"] == "/accounts/email/"
    page = client.get("/accounts/email/").content.decode()
    assert "Changing to <strong>ada@new.example</strong>" in page
    user.refresh_from_db()
    assert user.email == "ada@old.example"
    assert sign_in("ada@old.example") == 302

    assert client.post(last_link_to("ada@new.example")).status_code == 302
    user.refresh_from_db()
    assert user.email == "ada@new.example"
    assert list(EmailAddress.objects.filter(user=user).values_list("email", "verified")) == [
        ("ada@new.example", True)
    ]
    assert sign_in("ada@new.example") == 302 and sign_in("ada@old.example") == 200
    assert any("ada@old.example" in m.to for m in mail.outbox)  # the old address is told


def test_another_accounts_address_never_becomes_this_accounts(client):
    """The page does not say whose an address is (allauth's enumeration guard): the
    change waits for a link to that address, whose confirmation page refuses it."""
    grace = UserFactory(username="grace", email="grace@example.com")
    user = UserFactory(username="ada", email="ada@example.com")
    client.force_login(user)
    r = client.post("/accounts/email/", {"email": "Grace@example.com", "action_add": ""})
    assert r.status_code == 302
    link = last_link_to("grace@example.com")
    page = client.get(link).content.decode()
    assert "already confirmed by another account" in page
    client.post(link)
    user.refresh_from_db()
    assert user.email == "ada@example.com"
    assert not EmailAddress.objects.filter(user=user, email="grace@example.com", verified=True)
    assert EmailAddress.objects.get(email="grace@example.com", verified=True).user == grace
