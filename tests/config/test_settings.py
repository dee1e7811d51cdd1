"""Settings come from the environment; the production shape passes Django's deploy check."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from config.mail import email_settings

ROOT = Path(__file__).resolve().parents[2]
# Variables the settings read that must not leak in from the shell running the tests.
# Each test reads the settings in a subprocess under an environment of its own.
pytestmark = pytest.mark.db_independent

OWN_ENV = {
    "DATABASE_URL",
    "DATABASE_PREPARE_THRESHOLD",
    "DATABASE_SERVER_SIDE_BINDING",
    "DEBUG",
    "EMAIL_URL",
    "CACHE_URL",
    "DEFAULT_FROM_EMAIL",
    "SERVER_EMAIL",
    "SECRET_KEY",
    "ALLOWED_HOSTS",
}
REAL_SECRET = "x7!Qm2#kP9vL0sR4tY8wZ1cF6hJ3nB5dG2aE7uI0oK9jH4gT6yV8"


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if k not in OWN_ENV}
    full_env.update(env)
    full_env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_deploy_check_is_clean_with_debug_off_and_a_real_secret():
    proc = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DEBUG="0",
        SECRET_KEY=REAL_SECRET,
        ALLOWED_HOSTS="burnin.example.com",
        EMAIL_URL="smtp+tls://user:pass@mail.example.com:587",
        CACHE_URL="redis://127.0.0.1:6379/2",
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "WARNINGS" not in proc.stdout + proc.stderr


def test_debug_off_refuses_the_embedded_dev_secret():
    proc = manage("check", DEBUG="0")
    assert proc.returncode != 0
    assert "SECRET_KEY" in proc.stderr


def test_debug_off_refuses_an_empty_secret():
    proc = manage("check", DEBUG="0", SECRET_KEY="  ", EMAIL_URL="console://")
    assert proc.returncode != 0
    assert "RuntimeError" in proc.stderr and "SECRET_KEY" in proc.stderr


SECURITY = (
    "SESSION_COOKIE_SECURE",
    "CSRF_COOKIE_SECURE",
    "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
    "SECURE_CONTENT_TYPE_NOSNIFF",
    "SECURE_REFERRER_POLICY",
    "SECURE_CROSS_ORIGIN_OPENER_POLICY",
    "X_FRAME_OPTIONS",
)


def test_production_sends_hsts_and_secure_cookies_and_development_does_not():
    """DEBUG=0: https only (redirect, HSTS a year with preload, cookies Secure); DEBUG=1
    (make run on http://127.0.0.1): none of that, the other headers the same."""
    production = settings_under(
        *SECURITY,
        DEBUG="0",
        SECRET_KEY=REAL_SECRET,
        ALLOWED_HOSTS="burnin.example.com",
        EMAIL_URL="console://",
    )
    development = settings_under(*SECURITY, DEBUG="1")
    always = {
        "SECURE_CONTENT_TYPE_NOSNIFF": True,
        "SECURE_REFERRER_POLICY": "same-origin",
        "SECURE_CROSS_ORIGIN_OPENER_POLICY": "same-origin",
        "X_FRAME_OPTIONS": "DENY",
    }
    assert production == {
        **always,
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
        "SECURE_SSL_REDIRECT": True,
        "SECURE_HSTS_SECONDS": 31536000,
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": True,
        "SECURE_HSTS_PRELOAD": True,
    }
    assert development == {
        **always,
        "SESSION_COOKIE_SECURE": False,
        "CSRF_COOKIE_SECURE": False,
        "SECURE_SSL_REDIRECT": False,
        "SECURE_HSTS_SECONDS": 0,
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": False,
        "SECURE_HSTS_PRELOAD": False,
    }


def settings_under(*names: str, **env: str) -> dict:
    """The named settings as a fresh process sees them under this environment."""
    code = (
        "import json, django; from django.conf import settings; django.setup();"
        f"print(json.dumps({{n: getattr(settings, n, None) for n in {list(names)!r}}}))"
    )
    full_env = {k: v for k, v in os.environ.items() if k not in OWN_ENV}
    full_env.update(env, DJANGO_SETTINGS_MODULE="config.settings")
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def test_debug_off_refuses_to_start_without_email_url():
    proc = manage("check", DEBUG="0", SECRET_KEY=REAL_SECRET, ALLOWED_HOSTS="burnin.example.com")
    assert proc.returncode != 0
    assert "RuntimeError" in proc.stderr and "EMAIL_URL" in proc.stderr


def test_email_url_gives_smtp_with_tls_host_and_port():
    got = settings_under(
        "EMAIL_BACKEND",
        "EMAIL_HOST",
        "EMAIL_PORT",
        "EMAIL_HOST_USER",
        "EMAIL_HOST_PASSWORD",
        "EMAIL_USE_TLS",
        "EMAIL_USE_SSL",
        "EMAIL_TIMEOUT",
        "DEFAULT_FROM_EMAIL",
        "SERVER_EMAIL",
        DEBUG="0",
        SECRET_KEY=REAL_SECRET,
        ALLOWED_HOSTS="burnin.example.com",
        EMAIL_URL="smtp+tls://user:pass@mail.example.com:587",
    )
    assert got == {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": "mail.example.com",
        "EMAIL_PORT": 587,
        "EMAIL_HOST_USER": "user",
        "EMAIL_HOST_PASSWORD": "pass",
        "EMAIL_USE_TLS": True,
        "EMAIL_USE_SSL": False,
        "EMAIL_TIMEOUT": 10,
        "DEFAULT_FROM_EMAIL": "Burn-in <noreply@burnin.example.com>",
        "SERVER_EMAIL": "Burn-in <noreply@burnin.example.com>",
    }


def test_from_addresses_come_from_the_environment():
    got = settings_under(
        "DEFAULT_FROM_EMAIL",
        "SERVER_EMAIL",
        DEFAULT_FROM_EMAIL="Burn-in <learn@example.org>",
        SERVER_EMAIL="ops@example.org",
    )
    assert got == {
        "DEFAULT_FROM_EMAIL": "Burn-in <learn@example.org>",
        "SERVER_EMAIL": "ops@example.org",
    }


def test_debug_on_prints_mail_to_the_console_without_email_url():
    got = settings_under("EMAIL_BACKEND", DEBUG="1")
    assert got["EMAIL_BACKEND"] == "django.core.mail.backends.console.EmailBackend"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("submission://u:p@smtp.example.com", {"EMAIL_PORT": 587, "EMAIL_USE_TLS": True}),
        ("smtp+ssl://u:p@smtp.example.com:465", {"EMAIL_PORT": 465, "EMAIL_USE_SSL": True}),
        ("smtp://relay", {"EMAIL_PORT": 25, "EMAIL_USE_TLS": False, "EMAIL_USE_SSL": False}),
        ("smtp+tls://u:p%40x@h:587?timeout=3", {"EMAIL_HOST_PASSWORD": "p@x", "EMAIL_TIMEOUT": 3}),
        (
            "console://",
            {"EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend"},
        ),
    ],
)
def test_email_urls(url, expected):
    conf = email_settings(url)
    assert {key: conf[key] for key in expected} == expected


def test_an_unknown_email_scheme_is_an_error_not_a_silent_fallback():
    with pytest.raises(RuntimeError, match="EMAIL_URL"):
        email_settings("smtq://mail.example.com")


def test_cache_url_selects_the_cache():
    assert settings_under("CACHES")["CACHES"]["default"]["BACKEND"] == (
        "django.core.cache.backends.locmem.LocMemCache"
    )
    redis = settings_under("CACHES", CACHE_URL="redis://cache:6379/2")["CACHES"]["default"]
    assert redis == {
        "BACKEND": "config.cache.TolerantRedisCache",
        "LOCATION": "redis://cache:6379/2",
        "OPTIONS": {"socket_timeout": 1.0, "socket_connect_timeout": 1.0},
    }
    proc = manage("check", CACHE_URL="memcached://cache:11211")
    assert proc.returncode != 0 and "CACHE_URL" in proc.stderr


def test_sqlite_takes_the_write_lock_up_front_and_waits_for_it():
    options = settings_under("DATABASES")["DATABASES"]["default"]["OPTIONS"]
    assert options == {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    postgres = settings_under("DATABASES", DATABASE_URL="postgres://u@db:5432/burn")
    assert "transaction_mode" not in postgres["DATABASES"]["default"].get("OPTIONS", {})


def test_postgresql_prepares_repeated_statements_unless_told_not_to():
    url = "postgres://u@db:5432/burn"
    options = settings_under("DATABASES", DATABASE_URL=url)["DATABASES"]["default"]["OPTIONS"]
    assert options["prepare_threshold"] == 5 and options["server_side_binding"] is True
    for off in ("off", "none"):
        pooled = settings_under("DATABASES", DATABASE_URL=url, DATABASE_PREPARE_THRESHOLD=off)
        assert pooled["DATABASES"]["default"]["OPTIONS"]["prepare_threshold"] is None


def test_database_url_selects_the_engine():
    code = (
        "import django; from django.conf import settings; django.setup();"
        "print(settings.DATABASES['default']['ENGINE'], settings.DATABASES['default']['NAME'])"
    )
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(DJANGO_SETTINGS_MODULE="config.settings", DATABASE_URL="postgres://u@db:5432/burn")
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.stdout.split() == ["config.postgresql", "burn"], proc.stderr
