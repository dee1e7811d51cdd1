"""The two reads every signed-in request makes before its view, written as SQL: the
session row (accounts.session_store) and the signed-in user (accounts.backends), each
held to the ORM read it replaced, and the behaviour around them to Django's; and the
email-confirmation gate every start of an exam asks (accounts.selectors)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.db import SessionStore as DjangoStore
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.backends import PasswordBackend
from accounts.models import SignUp
from accounts.selectors import email_confirmed
from accounts.session_store import SessionStore, session_row
from tests.factories import UserFactory
from tests.sql_twins import assert_same

pytestmark = pytest.mark.django_db

SESSIONS = ["live", "expired", "unknown", "another's"]


@pytest.mark.parametrize("case", SESSIONS)
def test_the_session_read_is_what_its_queryset_reads(case):
    """The statement against Django's own `get(session_key=..., expire_date__gt=now)`,
    with other sessions beside it; an aware datetime and the signed data, as stored."""
    now = timezone.now().replace(microsecond=0)  # a whole second: SQLite's text compares
    other = DjangoStore()
    other["x"] = 1
    other.create()
    store = DjangoStore()
    store["answer_drafts"] = {"7:a": "42 GB"}
    store.create()
    key = store.session_key
    if case == "expired":
        Session.objects.filter(session_key=key).update(expire_date=now)
    elif case == "unknown":
        key = "k" * 32
    elif case == "another's":
        Session.objects.filter(session_key=other.session_key).update(expire_date=now)
    want = Session.objects.filter(session_key=key, expire_date__gt=now).first()
    got = session_row(key, now)
    if want is None:
        assert got is None and case in ("expired", "unknown")
        return
    assert_same(got, want)
    assert got.expire_date.tzinfo is not None
    assert SessionStore(session_key=key).load() == {"answer_drafts": {"7:a": "42 GB"}}


def test_the_service_s_store_is_django_s_apart_from_the_read():
    """Written by one store, read by the other, both ways; an expired or unknown key
    loads nothing and is forgotten, so a write makes a new session (no fixation)."""
    assert settings.SESSION_ENGINE == "accounts.session_store"
    ours = SessionStore()
    ours["k"] = "v"
    ours.create()
    assert DjangoStore(session_key=ours.session_key).load() == {"k": "v"}
    theirs = DjangoStore()
    theirs["k"] = "w"
    theirs.create()
    assert SessionStore(session_key=theirs.session_key).load() == {"k": "w"}
    Session.objects.filter(session_key=theirs.session_key).update(
        expire_date=timezone.now() - timedelta(seconds=1)
    )
    gone = SessionStore(session_key=theirs.session_key)
    assert gone.load() == {}
    assert gone.session_key is None


USERS = ["active", "inactive", "unknown", "never signed in"]


@pytest.mark.parametrize("case", USERS)
def test_the_user_read_is_what_its_queryset_reads(case):
    """PasswordBackend.get_user against ModelBackend's `get(pk=...)` and its rule that
    an inactive user is nobody; every column of the user with its type."""
    UserFactory()  # another user never comes back
    user = UserFactory(
        is_active=case != "inactive",
        last_login=None if case == "never signed in" else timezone.now(),
        first_name="Ada",
    )
    pk = user.pk + 1000 if case == "unknown" else user.pk
    want = get_user_model()._default_manager.filter(pk=pk).first()
    got = PasswordBackend().get_user(pk)
    if case in ("inactive", "unknown"):
        assert got is None
        return
    assert_same(got, want)


def test_a_signed_in_page_reads_the_session_and_the_user_in_two_plain_queries():
    """What a page asks before its view: the session row and the user, one statement
    each (no LIMIT 21: the ORM's `get` is gone from both)."""
    client = Client()
    client.force_login(UserFactory())
    with CaptureQueriesContext(connection) as ctx:
        assert client.get("/").status_code == 200
    first_two = [q["sql"] for q in ctx.captured_queries[:2]]
    assert "django_session" in first_two[0] and "auth_user" in first_two[1], first_two
    assert not any("LIMIT 21" in sql for sql in first_two)


CONFIRMATIONS = ["no sign-up", "unconfirmed", "confirmed", "another's unconfirmed"]


@pytest.mark.parametrize("case", CONFIRMATIONS)
def test_the_confirmation_gate_is_what_its_queryset_says(case):
    """email_confirmed's statement against the ORM's rule it replaced: only an account
    made by sign-up and not confirmed yet is unconfirmed."""
    user, other = UserFactory(), UserFactory()
    SignUp.objects.create(user=other)  # another account's pending sign-up
    if case in ("unconfirmed", "confirmed"):
        SignUp.objects.create(
            user=user, confirmed_at=timezone.now() if case == "confirmed" else None
        )
    want = not SignUp.objects.filter(user_id=user.pk, confirmed_at__isnull=True).exists()
    assert email_confirmed(user=user) is want
    assert want is (case != "unconfirmed")
