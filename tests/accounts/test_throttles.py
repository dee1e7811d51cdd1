"""The sign-in throttles on the account pages (api_common/throttles.py): one budget per
account whichever identifier was typed (its username in any case, or its email
address) across the sign-in page, the token endpoint, the admin's login, password change
and re-authentication; one per client IP; and sign-ups per client IP, whose flood gets
the 429 page in the site's layout."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from api_common.throttles import parse_rate
from tests.accounts.conftest import SIGN_UP_PASSWORD
from tests.api_common.test_throttles import Clock
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db
RATES = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
ACCOUNT_LIMIT, _ = parse_rate(RATES["sign_in_username"])
SIGN_UP_LIMIT, SIGN_UP_WINDOW = parse_rate(RATES["sign_up_ip"])


@pytest.fixture
def clock(monkeypatch) -> Clock:
    from api_common.throttles import PostRateThrottle

    clock = Clock()
    monkeypatch.setattr(PostRateThrottle, "timer", clock)
    return clock


@pytest.fixture
def learner(db):
    return UserFactory(username="learner", email="learner@example.com")


def login(client, typed: str, password: str):
    return client.post("/accounts/login/", {"login": typed, "password": password})


def test_sign_up_rate_is_the_documented_one():
    assert (SIGN_UP_LIMIT, SIGN_UP_WINDOW) == (10, 3600)


def test_one_budget_per_account_whichever_identifier_is_typed(client, learner, clock):
    typed = ["learner", "learner@example.com", "LEARNER@Example.com", " Learner "]
    statuses = [login(client, typed[i % 4], f"guess-{i}").status_code for i in range(7)]
    statuses += [
        APIClient()
        .post("/api/auth/token/", {"username": "learner@example.com", "password": "guess"})
        .status_code
        for _ in range(ACCOUNT_LIMIT - 7)
    ]
    assert statuses == [200] * 7 + [400] * (ACCOUNT_LIMIT - 7)
    for who in ("learner", "learner@example.com"):
        refused = login(client, who, PASSWORD)
        assert refused.status_code == 429 and "_auth_user_id" not in client.session
    # Another account from the same address is its own budget.
    UserFactory(username="colleague", email="colleague@example.com")
    assert login(client, "colleague@example.com", PASSWORD).status_code == 302


def test_password_change_and_reauthentication_spend_the_accounts_budget(client, learner, clock):
    client.force_login(learner)
    for i in range(ACCOUNT_LIMIT // 2):
        wrong = {"oldpassword": f"guess-{i}", "password1": "n3w-passphrase!", "password2": "x"}
        assert client.post("/accounts/password/change/", wrong).status_code == 200
        assert client.post("/accounts/reauthenticate/", {"password": "guess"}).status_code == 200
    right = {
        "oldpassword": PASSWORD,
        "password1": "n3w-passphrase!",
        "password2": "n3w-passphrase!",
    }
    refused = client.post("/accounts/password/change/", right)
    assert refused.status_code == 429 and refused.has_header("Retry-After")
    learner.refresh_from_db()
    assert learner.check_password(PASSWORD)
    # The same account's sign-in, typed as its address, is out of budget too.
    assert login(Client(), "learner@example.com", PASSWORD).status_code == 429


def test_a_sign_up_flood_from_one_address_gets_the_429_page(clock):
    def sign_up(n: int, addr: str = "127.0.0.1"):
        form = {
            "username": f"flood{n}",
            "email": f"flood{n}@example.com",
            "password1": SIGN_UP_PASSWORD,
            "password2": SIGN_UP_PASSWORD,
        }
        return Client(REMOTE_ADDR=addr).post("/accounts/signup/", form)

    statuses = [sign_up(n).status_code for n in range(SIGN_UP_LIMIT + 3)]
    assert statuses == [302] * SIGN_UP_LIMIT + [429] * 3
    assert get_user_model().objects.filter(username__startswith="flood").count() == SIGN_UP_LIMIT
    refused = sign_up(99)
    page = refused.content.decode()
    assert refused["Content-Type"].startswith("text/html")
    assert '<header class="site">' in page and "<h1>Too many attempts</h1>" in page
    assert 1 <= int(refused["Retry-After"]) <= SIGN_UP_WINDOW
    # Another address signs up; the flooding one signs in as usual.
    assert sign_up(100, addr="10.0.0.2").status_code == 302
    assert Client().get("/accounts/signup/").status_code == 200
    clock.advance(SIGN_UP_WINDOW)
    assert sign_up(101).status_code == 302
