"""Token authentication (api_common.authentication) sets what DRF's own would, in one query,
and refuses what DRF's refuses with DRF's messages."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication as DrfTokenAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from api_common.authentication import TokenAuthentication
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_the_user_and_token_are_the_ones_drf_reads():
    user = UserFactory(first_name="Ada", last_login=dt.datetime(2026, 11, 30, 8, 5, tzinfo=dt.UTC))
    token = Token.objects.create(user=user)
    with CaptureQueriesContext(connection) as ctx:
        ours_user, ours_token = TokenAuthentication().authenticate_credentials(token.key)
    assert len(ctx.captured_queries) == 1
    drf_user, drf_token = DrfTokenAuthentication().authenticate_credentials(token.key)
    for field in drf_user._meta.concrete_fields:
        assert getattr(ours_user, field.attname) == getattr(drf_user, field.attname), field.name
    assert ours_user.last_login.tzinfo is not None  # an aware datetime, as the ORM gives
    assert (ours_token.key, ours_token.user_id, ours_token.created) == (
        drf_token.key,
        drf_token.user_id,
        drf_token.created,
    )
    assert ours_token.user is ours_user
    assert ours_user._state.adding is False  # saved instances, as if the ORM read them


def test_unknown_and_inactive_are_refused_as_drf_refuses_them():
    with pytest.raises(exceptions.AuthenticationFailed, match="Invalid token"):
        TokenAuthentication().authenticate_credentials("0" * 40)
    user = UserFactory(is_active=False)
    token = Token.objects.create(user=user)
    with pytest.raises(exceptions.AuthenticationFailed, match="inactive"):
        TokenAuthentication().authenticate_credentials(token.key)


def test_the_api_uses_it(monkeypatch):
    user = UserFactory()
    token = Token.objects.create(user=user)
    calls = []
    real = TokenAuthentication.authenticate_credentials

    def spy(self, key):
        calls.append(key)
        return real(self, key)

    monkeypatch.setattr(TokenAuthentication, "authenticate_credentials", spy)
    api = APIClient()
    assert api.get("/api/quizzes/", HTTP_AUTHORIZATION=f"Token {token.key}").status_code == 200
    assert calls == [token.key]
    r = api.get("/api/quizzes/", HTTP_AUTHORIZATION="Token nope")
    assert r.status_code == 401
