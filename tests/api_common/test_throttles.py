"""Sign-in throttling (api_common/throttles.py): the token endpoint, the login page, the admin's
login page and the password reset answer 429 with Retry-After past the per-username
(per-email) and per-IP limits in REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], until the window
passes."""

import os
import time

import pytest
from django.conf import settings
from django.core import mail
from rest_framework.test import APIClient

from api_common.throttles import PostRateThrottle, parse_rate
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db

RATES = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
USERNAME_LIMIT, WINDOW = parse_rate(RATES["sign_in_username"])
IP_LIMIT, IP_WINDOW = parse_rate(RATES["sign_in_ip"])
EMAIL_LIMIT, EMAIL_WINDOW = parse_rate(RATES["password_reset_email"])


class Clock:
    def __init__(self):
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock(monkeypatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(PostRateThrottle, "timer", clock)
    return clock


@pytest.fixture
def learner(db):
    return UserFactory(username="learner")


def retry_after(response) -> int:
    seconds = int(response["Retry-After"])
    assert 1 <= seconds <= max(WINDOW, IP_WINDOW, EMAIL_WINDOW)
    return seconds


def token(username: str, password: str, **headers):
    return APIClient().post(
        "/api/auth/token/", {"username": username, "password": password}, **headers
    )


def login(client, username: str, password: str):
    return client.post("/accounts/login/", {"login": username, "password": password})


@pytest.mark.parametrize(
    ("rate", "parsed"),
    [("10/15m", (10, 900)), ("50/15min", (50, 900)), ("5/h", (5, 3600)), ("3/s", (3, 1))]
    + [("100/day", (100, 86400)), ("2/2d", (2, 172800))],
)
def test_rates_take_a_multiplier(rate, parsed):
    assert parse_rate(rate) == parsed


@pytest.mark.parametrize("rate", ["10", "ten/m", "10/15", "10/15w", ""])
def test_an_unreadable_rate_is_an_error(rate):
    with pytest.raises(ValueError, match="throttle rate"):
        parse_rate(rate)


def test_the_configured_limits_are_the_documented_ones():
    assert (USERNAME_LIMIT, WINDOW) == (10, 900)
    assert (IP_LIMIT, IP_WINDOW) == (50, 900)
    assert (EMAIL_LIMIT, EMAIL_WINDOW) == (5, 900)


def test_token_endpoint_refuses_a_guessed_username_then_the_right_password(learner, clock):
    statuses = [token("learner", f"guess-{i}").status_code for i in range(30)]
    assert statuses == [400] * USERNAME_LIMIT + [429] * (30 - USERNAME_LIMIT)

    refused = token("learner", PASSWORD)
    assert refused.status_code == 429
    body = refused.json()
    assert body["type"] == "client_error"
    [error] = body["errors"]
    assert error["code"] == "throttled" and "throttled" in error["detail"]
    wait = retry_after(refused)

    clock.advance(wait - 2)
    assert token("learner", PASSWORD).status_code == 429
    clock.advance(2)
    allowed = token("learner", PASSWORD)
    assert allowed.status_code == 200 and allowed.json()["token"]


def test_the_username_bucket_ignores_case_and_spaces(learner, clock):
    for i in range(USERNAME_LIMIT):
        assert token(["learner", "Learner", " LEARNER "][i % 3], f"guess-{i}").status_code == 400
    assert token("learner", PASSWORD).status_code == 429


def test_another_username_from_the_same_ip_works_until_the_ip_limit(learner, clock):
    UserFactory(username="colleague")
    for i in range(30):
        token("learner", f"guess-{i}")
    assert token("colleague", PASSWORD).status_code == 200  # the 31st request from this IP

    statuses = [token(f"stranger{i}", "guess").status_code for i in range(IP_LIMIT - 31)]
    assert statuses == [400] * (IP_LIMIT - 31)
    refused = token("colleague", PASSWORD)
    assert refused.status_code == 429
    retry_after(refused)

    # Another client address has its own budget.
    assert token("colleague", PASSWORD, REMOTE_ADDR="10.0.0.2").status_code == 200


def test_a_forged_x_forwarded_for_does_not_buy_a_new_ip_budget(clock):
    statuses = [
        token(f"stranger{i}", "guess", HTTP_X_FORWARDED_FOR=f"203.0.113.{i}").status_code
        for i in range(IP_LIMIT + 1)
    ]
    assert statuses == [400] * IP_LIMIT + [429]


def test_login_page_refuses_a_guessed_username_then_the_right_password(client, learner, clock):
    statuses = [login(client, "learner", f"guess-{i}").status_code for i in range(30)]
    assert statuses == [200] * USERNAME_LIMIT + [429] * (30 - USERNAME_LIMIT)

    refused = login(client, "learner", PASSWORD)
    assert refused.status_code == 429
    assert refused["Content-Type"].startswith("text/html")
    assert "Too many attempts" in refused.content.decode()
    assert "_auth_user_id" not in client.session
    wait = retry_after(refused)

    assert client.get("/accounts/login/").status_code == 200  # the page itself still shows

    clock.advance(wait)
    allowed = login(client, "learner", PASSWORD)
    assert allowed.status_code == 302 and client.session["_auth_user_id"] == str(learner.pk)


def test_token_and_login_page_share_one_budget_per_username(client, learner, clock):
    for i in range(USERNAME_LIMIT):
        token("learner", f"guess-{i}")
    assert login(client, "learner", PASSWORD).status_code == 429


def test_login_page_another_username_works_until_the_ip_limit(client, learner, clock):
    UserFactory(username="colleague")
    for i in range(30):
        login(client, "learner", f"guess-{i}")
    assert login(client, "colleague", PASSWORD).status_code == 302
    client.logout()
    for i in range(IP_LIMIT - 31):
        assert login(client, f"stranger{i}", "guess").status_code == 200
    assert login(client, "colleague", PASSWORD).status_code == 429


def admin_login(client, username: str, password: str, **headers):
    return client.post("/admin/login/", {"username": username, "password": password}, **headers)


def test_admin_login_refuses_a_guessed_username_then_the_right_password(client, clock):
    root = UserFactory(username="root", is_staff=True, is_superuser=True)
    statuses = [admin_login(client, "root", f"guess-{i}").status_code for i in range(15)]
    assert statuses == [200] * USERNAME_LIMIT + [429] * (15 - USERNAME_LIMIT)

    refused = admin_login(client, "root", PASSWORD)
    assert refused.status_code == 429 and "Too many attempts" in refused.content.decode()
    assert "_auth_user_id" not in client.session
    wait = retry_after(refused)
    assert client.get("/admin/login/").status_code == 200  # the page itself still shows

    clock.advance(wait)
    allowed = admin_login(client, "root", PASSWORD)
    assert allowed.status_code == 302 and client.session["_auth_user_id"] == str(root.pk)


def test_admin_login_shares_the_budgets_of_the_other_sign_in_forms(client, clock):
    UserFactory(username="root", is_staff=True, is_superuser=True)
    for i in range(USERNAME_LIMIT):
        token("ROOT", f"guess-{i}")
    assert admin_login(client, "root", PASSWORD).status_code == 429
    # and the per-address budget: the login page and the token endpoint spend it too
    for i in range(IP_LIMIT - USERNAME_LIMIT - 1):
        login(client, f"stranger{i}", "guess")
    assert admin_login(client, "somebody", "guess").status_code == 429
    assert admin_login(client, "somebody", "guess", REMOTE_ADDR="10.0.0.2").status_code == 200


def test_password_reset_is_throttled_per_email(client, learner, clock):
    statuses = [
        client.post("/accounts/password/reset/", {"email": learner.email}).status_code
        for _ in range(30)
    ]
    assert statuses == [302] * EMAIL_LIMIT + [429] * (30 - EMAIL_LIMIT)
    assert len(mail.outbox) == EMAIL_LIMIT

    refused = client.post("/accounts/password/reset/", {"email": learner.email.upper()})
    assert refused.status_code == 429 and "Too many attempts" in refused.content.decode()
    wait = retry_after(refused)

    # Another address from the same client still gets its mail, until the IP limit.
    other = UserFactory(username="colleague")
    assert client.post("/accounts/password/reset/", {"email": other.email}).status_code == 302
    assert len(mail.outbox) == EMAIL_LIMIT + 1

    clock.advance(wait)
    assert client.post("/accounts/password/reset/", {"email": learner.email}).status_code == 302
    assert len(mail.outbox) == EMAIL_LIMIT + 2


def test_password_reset_counts_against_the_ip_budget(client, learner, clock):
    for i in range(IP_LIMIT):
        client.post("/accounts/password/reset/", {"email": f"nobody{i}@example.com"})
    assert token("learner", PASSWORD).status_code == 429
    assert login(client, "learner", PASSWORD).status_code == 429


def test_a_few_sign_ins_in_one_test_are_never_throttled(client, learner):
    for _ in range(5):
        assert login(client, "learner", PASSWORD).status_code == 302
        client.logout()
        assert token("learner", PASSWORD).status_code == 200


def test_rates_are_read_from_the_settings_when_a_throttle_is_made(settings, learner, clock):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**RATES, "sign_in_username": "2/m"},
    }
    assert [token("learner", "guess").status_code for _ in range(3)] == [400, 400, 429]
    clock.advance(60)
    assert token("learner", PASSWORD).status_code == 200


@pytest.fixture
def redis_caches(monkeypatch):
    """Two clients of production's cache on one Redis, as two gunicorn workers have."""
    import uuid

    import redis

    from config.cache import TolerantRedisCache as RedisCache

    url = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/14")
    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except redis.RedisError as exc:
        if os.environ.get("REQUIRE_SERVICES") == "1":
            pytest.fail(f"Redis at {url}: {exc}")
        pytest.skip(f"no Redis at {url}")
    prefix = f"burnin-test-{uuid.uuid4().hex[:8]}"
    caches = [RedisCache(url, {"KEY_PREFIX": prefix}) for _ in range(2)]
    yield caches
    client = redis.Redis.from_url(url)
    for key in client.scan_iter(f"{prefix}:*"):
        client.delete(key)


def test_workers_share_the_count_through_redis(monkeypatch, learner, clock, redis_caches):
    statuses = []
    for i in range(USERNAME_LIMIT + 1):
        monkeypatch.setattr(PostRateThrottle, "cache", redis_caches[i % 2])
        statuses.append(token("learner", f"guess-{i}").status_code)
    assert statuses == [400] * USERNAME_LIMIT + [429]


@pytest.fixture
def fallback_counts():
    """The per-process counts the throttles fall back on, empty at the start and end."""
    from api_common.throttles import FALLBACK_COUNTS

    FALLBACK_COUNTS.clear()
    yield FALLBACK_COUNTS
    FALLBACK_COUNTS.clear()


def redis_on_a_closed_port(tolerant: bool):
    from django.core.cache.backends.redis import RedisCache

    from config.cache import TolerantRedisCache
    from tests.config.test_cache import OPTIONS, closed_port

    cls = TolerantRedisCache if tolerant else RedisCache
    return cls(f"redis://127.0.0.1:{closed_port()}/0", {"OPTIONS": OPTIONS})


@pytest.mark.parametrize("tolerant", [True, False], ids=["tolerant-cache", "raising-cache"])
def test_with_the_cache_down_the_throttles_still_limit_within_the_process(
    monkeypatch, client, learner, clock, fallback_counts, tolerant
):
    """Redis refusing connections (the production cache, which swallows the error, or a
    plain RedisCache, which raises it): each process counts on its own meanwhile, with
    the same rates, so a guesser still meets the limit (per worker)."""
    monkeypatch.setattr(PostRateThrottle, "cache", redis_on_a_closed_port(tolerant))
    statuses = [token("learner", f"guess-{i}").status_code for i in range(USERNAME_LIMIT + 1)]
    assert statuses == [400] * USERNAME_LIMIT + [429]
    assert login(client, "learner", PASSWORD).status_code == 429  # one budget still
    assert token("colleague", "guess").status_code == 400
    clock.advance(WINDOW)
    assert token("learner", PASSWORD).status_code == 200


def test_counts_go_back_to_the_shared_cache_once_it_answers(
    monkeypatch, learner, clock, fallback_counts
):
    from django.core.cache import cache

    monkeypatch.setattr(PostRateThrottle, "cache", redis_on_a_closed_port(True))
    for i in range(USERNAME_LIMIT - 1):
        assert token("learner", f"guess-{i}").status_code == 400
    monkeypatch.setattr(PostRateThrottle, "cache", cache)  # Redis is back
    # the shared cache counts from where it was (nothing): the fallback's are not merged
    statuses = [token("learner", f"guess-{i}").status_code for i in range(USERNAME_LIMIT + 1)]
    assert statuses == [400] * USERNAME_LIMIT + [429]


def test_a_hung_cache_costs_its_timeout_and_the_limit_still_holds(
    monkeypatch, settings, learner, clock, fallback_counts, silent_server
):
    """Redis accepting connections and never answering: each count waits out the socket
    timeout, then falls back on this process's counts."""
    from config.cache import TolerantRedisCache

    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**RATES, "sign_in_username": "2/m"},
    }
    options = {"socket_timeout": 0.2, "socket_connect_timeout": 0.2}
    hung = TolerantRedisCache(f"redis://127.0.0.1:{silent_server}/0", {"OPTIONS": options})
    monkeypatch.setattr(PostRateThrottle, "cache", hung)
    assert [token("learner", "guess").status_code for _ in range(3)] == [400, 400, 429]
