"""Tests against the real services: PostgreSQL, Redis and a Celery worker process.

They run in the second pass of .ci/run, which sets DATABASE_URL and CELERY_BROKER_URL.
Elsewhere they skip, except with REQUIRE_SERVICES=1, where a missing service fails.
"""

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(pytest.mark.services)


@pytest.fixture
def services_ready(db):
    broker = os.environ.get("CELERY_BROKER_URL")
    problems = []
    if not broker:
        problems.append("CELERY_BROKER_URL is not set")
    if connection.vendor != "postgresql":
        problems.append(f"database is {connection.vendor}, not PostgreSQL")
    if problems:
        if os.environ.get("REQUIRE_SERVICES") == "1":
            pytest.fail("; ".join(problems))
        pytest.skip("; ".join(problems))
    return broker


@pytest.fixture
def celery_worker_process(services_ready, transactional_db):
    """A real worker in its own process, on a private queue, against the test database."""
    queue = f"burnin-test-{uuid.uuid4().hex[:8]}"
    db = connection.settings_dict
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "CONN_MAX_AGE": "0",
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--pool",
            "solo",
            "--queues",
            queue,
            "--hostname",
            f"{queue}@%h",
            "--without-gossip",
            "--without-mingle",
            "--loglevel",
            "WARNING",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    from config.celery import app

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"worker exited: {proc.stdout.read()}")
        replies = app.control.ping(destination=[f"{queue}@{os.uname().nodename}"], timeout=1)
        if replies:
            break
    else:
        proc.kill()
        pytest.fail("worker did not answer a ping within 60 s")
    yield queue
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture
def private_redis(tmp_path, monkeypatch):
    """A private Redis, running, that this process now publishes to (and pings workers
    through): CELERY_BROKER_WRITE_URL outranks the settings' broker URL in Celery, and the
    app's pools are reset so the next publish connects there. Skipped without
    redis-server, failed under REQUIRE_SERVICES=1."""
    if shutil.which("redis-server") is None:
        if os.environ.get("REQUIRE_SERVICES") == "1":
            pytest.fail("redis-server is not installed")
        pytest.skip("redis-server is not installed")
    from config.celery import app
    from tests.services.redis_server import RedisServer

    server = RedisServer(tmp_path)
    server.start()
    monkeypatch.setenv("CELERY_BROKER_WRITE_URL", server.url)
    monkeypatch.setattr(app, "_pool", None)
    monkeypatch.setattr(app.amqp, "_producer_pool", None)
    yield server
    server.stop()
    if app._pool is not None:
        app._pool.force_close_all()
    if app.amqp._producer_pool is not None:
        app.amqp._producer_pool.force_close_all()
