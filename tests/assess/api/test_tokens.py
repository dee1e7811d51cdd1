"""API tokens expire (API_TOKEN_TTL after issue: 401 `token_expired`, at no extra query),
are replaced by signing in once expired, and are revoked by their holder (DELETE), by
staff in the admin or by `manage.py revoke_tokens` (401 after, each revocation audited).
Every response checked is held to the schema."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework import exceptions
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from api_common.authentication import TokenAuthentication, TokenExpired
from audit.models import AuditEvent
from tests.factories import UserFactory
from tests.openapi import assert_documented, project

pytestmark = pytest.mark.django_db
PASSWORD = "token-test-pass-1"
URL = "/api/auth/token/"


@pytest.fixture
def user():
    user = UserFactory(username="tok")
    user.set_password(PASSWORD)
    user.save()
    return user


def aged(user, days: float) -> Token:
    token = Token.objects.create(user=user)
    Token.objects.filter(pk=token.pk).update(created=timezone.now() - timedelta(days=days))
    return Token.objects.get(pk=token.pk)


def call(key: str | None):
    headers = {"HTTP_AUTHORIZATION": f"Token {key}"} if key else {}
    return APIClient().get("/api/me/mastery/", **headers)


def codes(response) -> list[str]:
    return [e["code"] for e in response.json()["errors"]]


def test_a_token_works_until_its_ttl_then_is_a_401_token_expired(user):
    fresh = aged(user, 29.9).key
    assert call(fresh).status_code == 200
    Token.objects.all().delete()
    old = aged(user, 30.1).key
    r = call(old)
    assert r.status_code == 401 and codes(r) == ["token_expired"]
    assert r["WWW-Authenticate"].startswith("Token")
    assert_documented(r, "get", "/api/me/mastery/")
    unknown = call("0" * 40)
    assert unknown.status_code == 401 and codes(unknown) == ["authentication_failed"]
    # The TTL is the setting's (API_TOKEN_TTL), and expiry reads no more than the one row.
    with override_settings(API_TOKEN_TTL=timedelta(days=40)):
        assert call(old).status_code == 200
    Token.objects.filter(key=old).update(created=timezone.now() - timedelta(hours=2))
    ttl = override_settings(API_TOKEN_TTL=timedelta(hours=1))
    with ttl, CaptureQueriesContext(connection) as ctx, pytest.raises(TokenExpired) as err:
        TokenAuthentication().authenticate_credentials(old)
    assert len(ctx.captured_queries) == 1
    assert isinstance(err.value, exceptions.AuthenticationFailed)


def test_signing_in_returns_the_same_token_until_it_expires_then_a_new_one(user):
    def sign_in():
        r = APIClient().post(URL, {"username": "tok", "password": PASSWORD}, format="json")
        assert_documented(r, "post", URL)
        return r.json()

    first = sign_in()
    token = Token.objects.get(user=user)
    assert first["token"] == token.key
    assert first["expires_at"].startswith((token.created + timedelta(days=30)).date().isoformat())
    assert sign_in()["token"] == token.key
    Token.objects.filter(pk=token.pk).update(created=timezone.now() - timedelta(days=31))
    renewed = sign_in()["token"]
    assert renewed != token.key  # an expired token is replaced, never handed out again
    assert list(Token.objects.filter(user=user).values_list("key", flat=True)) == [renewed]
    assert call(renewed).status_code == 200


def test_delete_revokes_the_callers_token_and_audits_it(user):
    other = Token.objects.create(user=UserFactory(username="bystander"))
    key = Token.objects.create(user=user).key
    api = APIClient()
    r = api.delete(URL, HTTP_AUTHORIZATION=f"Token {key}")
    assert r.status_code == 204 and r.content == b""
    assert_documented(r, "delete", URL)
    assert not Token.objects.filter(user=user).exists()
    assert Token.objects.filter(pk=other.pk).exists()
    after = call(key)
    assert after.status_code == 401 and codes(after) == ["authentication_failed"]
    (event,) = AuditEvent.objects.all()
    assert (event.actor, event.action, event.target_id) == (user, "token.revoke", str(user.pk))
    # Without a token (a session has none to revoke) or with an expired one: 401.
    anonymous = api.delete(URL)
    assert anonymous.status_code == 401 and codes(anonymous) == ["not_authenticated"]
    assert_documented(anonymous, "delete", URL)
    expired = aged(user, 31).key
    r = api.delete(URL, HTTP_AUTHORIZATION=f"Token {expired}")
    assert r.status_code == 401 and codes(r) == ["token_expired"]
    assert AuditEvent.objects.count() == 1


def test_the_schema_documents_expiry_and_revocation():
    doc = project().document
    assert "token_expired" in doc["components"]["schemas"]["ErrorCode401Enum"]["enum"]
    delete = doc["paths"][URL]["delete"]
    assert {"204", "401"} <= set(delete["responses"])
    assert "expires_at" in doc["components"]["schemas"]["Token"]["required"]


def test_staff_revoke_in_the_admin_and_by_command(user, client):
    staff = UserFactory(username="root", is_staff=True, is_superuser=True)
    token = Token.objects.create(user=user)
    client.force_login(staff)
    r = client.post(
        "/admin/authtoken/tokenproxy/",
        {"action": "revoke_tokens", "_selected_action": [token.pk]},
    )
    assert r.status_code == 302
    assert call(token.key).status_code == 401
    # the plain delete, which would leave no trace, is off
    assert client.get(f"/admin/authtoken/tokenproxy/{token.pk}/delete/").status_code in (403, 302)
    again = Token.objects.create(user=user)
    out = StringIO()
    call_command("revoke_tokens", "tok", stdout=out)
    assert "tok: 1 token(s) revoked" in out.getvalue()
    assert call(again.key).status_code == 401
    events = list(AuditEvent.objects.order_by("id").values_list("actor", "action", "detail"))
    assert events == [
        (staff.pk, "token.revoke", {"by": "staff"}),
        (None, "token.revoke", {"by": "command"}),
    ]
