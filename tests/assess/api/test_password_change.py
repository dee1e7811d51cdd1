"""A password change revokes the user's API tokens on every road that changes it (the
reset page, allauth's change and set pages, the admin's own change page, the admin's form
for another user, `manage.py changepassword`, set_password and save in code), each
revocation audited; signing in with the new password gives a new token. A save that
changes no password, and a sign-in that re-hashes the password under a newer hasher, keep
the tokens."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.core import mail
from django.core.management import call_command
from django.test import override_settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from audit.models import AuditEvent
from tests.factories import PASSWORD, UserFactory
from tests.openapi import assert_documented

pytestmark = pytest.mark.django_db
NEW = "a-fresh-and-long-passphrase-93"
URL = "/api/auth/token/"


class FastPBKDF2Hasher(PBKDF2PasswordHasher):
    """A newer hasher than the test settings' MD5, cheap enough for a test."""

    algorithm = "pbkdf2_fast"
    iterations = 1000


@pytest.fixture
def learner():
    return UserFactory(username="learner")


def sign_in(username: str, password: str):
    r = APIClient().post(URL, {"username": username, "password": password}, format="json")
    assert_documented(r, "post", URL)
    return r


def works(key: str) -> bool:
    r = APIClient().get("/api/me/mastery/", HTTP_AUTHORIZATION=f"Token {key}")
    assert r.status_code in (200, 401)
    return r.status_code == 200


def revocations() -> list[tuple]:
    return list(
        AuditEvent.objects.filter(action="token.revoke")
        .order_by("id")
        .values_list("actor", "target_id", "detail")
    )


def assert_revoked_then_renewed(user, old: str, password: str = NEW) -> None:
    assert not works(old)
    assert not Token.objects.filter(key=old).exists()
    assert revocations()[-1] == (None, str(user.pk), {"by": "password_change"})
    assert sign_in(user.username, PASSWORD).status_code == 400  # the old password is gone
    r = sign_in(user.username, password)
    assert r.status_code == 200
    assert r.json()["token"] != old and works(r.json()["token"])


def reset_password(client, user, password: str):
    assert client.post("/accounts/password/reset/", {"email": user.email}).status_code == 302
    pattern = r"https?://[^/\s]+(/accounts/password/reset/key/\S+/)"
    (link,) = re.findall(pattern, mail.outbox[-1].body)
    form = client.get(link, follow=True)
    assert form.status_code == 200
    assert "signs out your API tokens" in form.content.decode()  # the form says so
    set_password_url = form.redirect_chain[-1][0]
    return client.post(set_password_url, {"password1": password, "password2": password})


def test_the_reset_page_revokes_the_tokens(client, learner):
    old = sign_in("learner", PASSWORD).json()["token"]
    assert works(old)
    r = reset_password(client, learner, NEW)
    assert r.status_code == 302 and r["Location"] == "/accounts/password/reset/key/done/"
    assert_revoked_then_renewed(learner, old)


def test_the_password_change_page_revokes_the_tokens(client, learner):
    old = sign_in("learner", PASSWORD).json()["token"]
    client.force_login(learner)
    page = client.get("/accounts/password/change/").content.decode()
    assert "signs out your API tokens" in page
    r = client.post(
        "/accounts/password/change/",
        {"oldpassword": PASSWORD, "password1": NEW, "password2": NEW},
    )
    assert r.status_code == 302
    assert client.get("/dashboard/").status_code == 200  # the session stays signed in
    assert_revoked_then_renewed(learner, old)


def test_the_set_password_page_revokes_the_tokens_of_an_account_without_one(client):
    """An account made by single sign-on has no password and a personal token; setting a
    first password is a change like any other."""
    user = UserFactory(username="engineer")
    user.set_unusable_password()
    user.save()
    old = Token.objects.create(user=user).key
    client.force_login(user)
    r = client.post("/accounts/password/set/", {"password1": NEW, "password2": NEW})
    assert r.status_code == 302
    assert not works(old) and not Token.objects.filter(key=old).exists()
    assert revocations()[-1] == (None, str(user.pk), {"by": "password_change"})
    assert sign_in("engineer", NEW).status_code == 200


def test_the_admins_own_change_page_revokes_the_tokens(client):
    staff = UserFactory(username="staffer", is_staff=True)
    old = sign_in("staffer", PASSWORD).json()["token"]
    client.force_login(staff)
    r = client.post(
        "/admin/password_change/",
        {"old_password": PASSWORD, "new_password1": NEW, "new_password2": NEW},
    )
    assert r.status_code == 302 and r["Location"] == "/admin/password_change/done/"
    assert_revoked_then_renewed(staff, old)


def test_the_admins_form_for_another_user_revokes_their_tokens(client, learner):
    root = UserFactory(username="root", is_staff=True, is_superuser=True)
    old = sign_in("learner", PASSWORD).json()["token"]
    roots = sign_in("root", PASSWORD).json()["token"]
    client.force_login(root)
    r = client.post(
        f"/admin/auth/user/{learner.pk}/password/",
        {"usable_password": "true", "password1": NEW, "password2": NEW},
    )
    assert r.status_code == 302
    assert_revoked_then_renewed(learner, old)
    assert works(roots)  # only the changed user's tokens go


def test_the_changepassword_command_revokes_the_tokens(monkeypatch, learner):
    from django.contrib.auth.management.commands import changepassword

    old = sign_in("learner", PASSWORD).json()["token"]
    monkeypatch.setattr(changepassword.Command, "_get_pass", lambda self, prompt="": NEW)
    call_command("changepassword", "learner", stdout=StringIO())
    assert_revoked_then_renewed(learner, old)


def test_set_password_and_save_in_code_revokes_every_token(learner):
    old = sign_in("learner", PASSWORD).json()["token"]
    other = Token.objects.create(user=UserFactory(username="bystander"))
    learner.set_password(NEW)
    assert works(old)  # nothing happens until the change is saved
    learner.save()
    assert_revoked_then_renewed(learner, old)
    assert works(other.key)
    assert len(revocations()) == 1  # one event per token revoked, none for the bystander


def test_a_save_or_a_rehash_that_changes_no_password_keeps_the_tokens(learner):
    old = sign_in("learner", PASSWORD).json()["token"]
    learner.first_name = "Ada"
    learner.save()
    assert works(old)

    # Signing in under a newer preferred hasher re-hashes the password and saves it.
    hashers = ["tests.assess.api.test_password_change.FastPBKDF2Hasher"]
    hashers.append("django.contrib.auth.hashers.MD5PasswordHasher")
    with override_settings(PASSWORD_HASHERS=hashers):
        assert sign_in("learner", PASSWORD).json()["token"] == old
        learner.refresh_from_db()
        assert learner.password.startswith("pbkdf2_fast$")
    assert works(old) and revocations() == []


def test_creating_a_user_with_a_password_audits_nothing():
    get_user_model().objects.create_user("newcomer", password=NEW)
    assert revocations() == []
