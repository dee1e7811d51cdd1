"""docker-compose.yml gives the app what production settings demand, and they pass the
deploy check."""

import re
from pathlib import Path

import pytest
import yaml

from tests.config.test_settings import manage

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
APP_ENV = COMPOSE["x-app"]["environment"]

pytestmark = pytest.mark.db_independent  # the compose file and subprocesses of its own


def test_mail_and_secret_are_required_and_the_cache_is_redis():
    assert APP_ENV["EMAIL_URL"] == "${EMAIL_URL:?set EMAIL_URL}"
    assert APP_ENV["SECRET_KEY"] == "${SECRET_KEY:?set SECRET_KEY}"
    assert APP_ENV["CACHE_URL"].startswith("redis://redis:6379/")
    # Its own Redis database, apart from the broker's and the results'.
    used = {APP_ENV["CELERY_BROKER_URL"], APP_ENV["CELERY_RESULT_BACKEND"]}
    assert APP_ENV["CACHE_URL"] not in used


def test_migrate_loads_hardware_then_curricula():
    command = COMPOSE["services"]["migrate"]["command"]
    steps = re.findall(r"manage\.py (\w+)", command)
    assert steps == ["migrate", "load_hardware", "load_curricula", "load_tracks"]


GIVEN = {
    "SECRET_KEY": "x7!Qm2#kP9vL0sR4tY8wZ1cF6hJ3nB5dG2aE7uI0oK9jH4gT6yV8",
    "EMAIL_URL": "smtp+tls://user:pass@mail.example.com:587",
}


def fill(value: str, given: dict = GIVEN) -> str:
    """A compose value as `docker compose up` sees it with only `given` in the shell:
    ${NAME:?message} takes the given value; ${NAME:-default} its default."""

    def one(match):
        name, op, rest = match.groups()
        return given[name] if op == ":?" else given.get(name, rest)

    return re.sub(r"\$\{(\w+)(:\?|:-)([^}]*)\}", one, str(value))


def test_the_compose_environment_passes_the_deploy_check():
    env = {name: fill(value) for name, value in APP_ENV.items()}
    proc = manage("check", "--deploy", "--fail-level", "WARNING", **env)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_image_build_step_can_load_the_settings():
    """The Dockerfile's collectstatic runs with DEBUG=0, so it must give every variable
    that DEBUG=0 requires (placeholders: nothing is sent or signed at build time)."""
    dockerfile = (ROOT / "Dockerfile").read_text()
    step = next(line for line in dockerfile.splitlines() if "collectstatic" in line)
    env = dict(re.findall(r"(\w+)=(\S+)", step.split("python", 1)[0]))
    assert env.get("DEBUG") == "0", step
    proc = manage("check", **env)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_the_image_and_the_package_hold_every_app_of_ours():
    """An app missing from the Dockerfile's COPY lines or the package list imports fine
    from a checkout and fails only in the image: every local app must be in both."""
    from django.conf import settings

    ours = sorted(app for app in settings.INSTALLED_APPS if (ROOT / app).is_dir())
    assert {"assess", "certify", "orgs"} <= set(ours)
    copied = set(re.findall(r"^COPY (\w+) \1$", (ROOT / "Dockerfile").read_text(), re.M))
    packaged = set(re.findall(r'"(\w+)\*"', (ROOT / "pyproject.toml").read_text()))
    assert [app for app in ours if app not in copied] == []
    assert [app for app in ours if app not in packaged] == []


def test_by_default_no_forwarded_for_header_is_trusted(settings):
    """compose publishes gunicorn's port itself: with no proxy in front, a client writes
    X-Forwarded-For as it likes, so by default the per-address sign-in budget is the
    peer's (NUM_PROXIES 0), and a new forged address each time buys nothing. Whoever
    puts a proxy in front sets NUM_PROXIES to the number of proxies."""
    from django.test import RequestFactory

    from api_common.throttles import SignInIPThrottle, parse_rate

    num_proxies = fill(APP_ENV["NUM_PROXIES"])
    assert num_proxies == "0"
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": int(num_proxies)}
    limit, _window = parse_rate(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["sign_in_ip"])

    def allowed(forged: str) -> bool:
        request = RequestFactory().post("/api/auth/token/", HTTP_X_FORWARDED_FOR=forged)
        return SignInIPThrottle().allow_request(request, None)

    verdicts = [allowed(f"203.0.113.{i}") for i in range(limit + 1)]
    assert verdicts == [True] * limit + [False]
    # Told of one proxy, the address it appended is the client's: the same forged
    # headers are then as many clients (right behind a proxy, wrong without one).
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    assert allowed("198.51.100.7") is True
