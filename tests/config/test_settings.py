"""Settings come from the environment; the production shape passes Django's deploy check."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    full_env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "DEBUG"}}
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
        SECRET_KEY="x7!Qm2#kP9vL0sR4tY8wZ1cF6hJ3nB5dG2aE7uI0oK9jH4gT6yV8",
        ALLOWED_HOSTS="burnin.example.com",
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "WARNINGS" not in proc.stdout + proc.stderr


def test_debug_off_refuses_the_embedded_dev_secret():
    proc = manage("check", DEBUG="0")
    assert proc.returncode != 0
    assert "SECRET_KEY" in proc.stderr


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
    assert proc.stdout.split() == ["django.db.backends.postgresql", "burn"], proc.stderr


def test_celery_runs_in_process_without_a_broker(settings):
    from config.celery import app

    if os.environ.get("CELERY_BROKER_URL"):
        assert app.conf.task_always_eager is False
    else:
        assert app.conf.task_always_eager is True
