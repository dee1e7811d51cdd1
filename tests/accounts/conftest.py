"""Fixtures for the account tests: a lesson to practise, an exam and a certification
open to anyone signed in, and sign-up through the real form."""

from __future__ import annotations

import re

import pytest
from django.core import mail

from assess.models import Quiz
from tests.factories import LessonFactory, QuizFactory

SIGN_UP_PASSWORD = "a long and fresh passphrase 71"


@pytest.fixture
def lesson(db):
    return LessonFactory(slug="gpu-memory-math", templates=["weights-memory"])


@pytest.fixture
def exam(db):
    return QuizFactory(title="Sizing exam", mode=Quiz.Mode.EXAM, slots=[["weights-memory"]])


@pytest.fixture
def certification(db):
    return QuizFactory(
        title="Serving certification", mode=Quiz.Mode.CERTIFICATION, slots=[["weights-memory"]]
    )


@pytest.fixture
def sign_up(client):
    """sign_up(username, email) -> the response of the sign-up form's POST; the client
    is then signed in as the new account."""

    def go(username: str = "newcomer", email: str = "newcomer@example.com", **extra):
        form = {
            "username": username,
            "email": email,
            "password1": SIGN_UP_PASSWORD,
            "password2": SIGN_UP_PASSWORD,
        }
        return client.post("/accounts/signup/", form, **extra)

    return go


def link_in(message) -> str:
    """The path of the confirmation link in a mail."""
    return re.search(r"https?://[^/\s]+(/accounts/confirm-email/\S+/)", message.body).group(1)


def last_link_to(address: str) -> str:
    sent = [m for m in mail.outbox if address in m.to]
    assert sent, f"no mail to {address}"
    return link_in(sent[-1])


@pytest.fixture(scope="session")
def provider():
    """The company's identity provider, running for the session (tests/accounts/idp/)."""
    from tests.accounts.sso import start_provider, stop_provider

    running = start_provider()
    yield running
    stop_provider(running)
