"""Faults against a private PostgreSQL: a throwaway cluster (bench/_cluster.py: initdb in
a temporary directory, owned by the `postgres` OS user since the server refuses to run as
root) on a free port, and the service on gunicorn pointed at it. One cluster and one server for
the whole session; the tests stop, restart and cut it, never the shared server.

Like tests/services/ these run in the PostgreSQL pass of .ci/run (marker `services`)
and skip in make test's SQLite pass; with REQUIRE_SERVICES=1 a missing PostgreSQL
binary or a non-PostgreSQL suite fails instead.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from bench._cluster import Missing, cluster_create, cluster_destroy
from bench._server import free_port, wait_for

ROOT = Path(__file__).resolve().parents[2]


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(pytest.mark.services)


def _refuse(reason: str):
    if os.environ.get("REQUIRE_SERVICES") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def cluster():
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        _refuse("fault tests run in the PostgreSQL pass (DATABASE_URL is not PostgreSQL)")
    try:
        made = cluster_create(prefix="burnin-faults-")
    except Missing as exc:
        _refuse(f"{exc} absent")
    try:
        yield made
    finally:
        cluster_destroy(made)


@dataclass
class Server:
    url: str
    seed: dict
    log: Path

    def headers(self) -> dict:
        return {"Authorization": f"Token {self.seed['token']}"}


@pytest.fixture(scope="session")
def server(cluster, tmp_path_factory):
    """gunicorn on the private cluster, after migrate and a seed; DEBUG off."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings_test",
        "DATABASE_URL": cluster.url,
        "CONN_MAX_AGE": "0",
        "DATABASE_CONNECT_TIMEOUT": "2",
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "EMAIL_URL": "console://",
        "SECURE_SSL_REDIRECT": "0",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "CELERY_BROKER_URL": "",
        "CELERY_RESULT_BACKEND": "",
        "LOG_LEVEL": "ERROR",
        "PYTHONPATH": str(ROOT),
    }
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    for args in (["manage.py", "migrate", "--noinput", "-v", "0"],):
        subprocess.run([sys.executable, *args], cwd=ROOT, env=env, check=True, timeout=300)
    seeded = subprocess.run(
        [sys.executable, "-m", "tests.faults.seed"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert seeded.returncode == 0, seeded.stderr[-3000:]
    seed = json.loads(seeded.stdout.strip().splitlines()[-1])
    port = free_port()
    log = tmp_path_factory.mktemp("faults") / "gunicorn.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "config.wsgi:application",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                "2",
                "--timeout",
                "30",
                # The boot warm-up (config.warmup) once, in the master, before it listens:
                # four seconds a worker on a shared 2-core machine, which kept the first
                # requests of an unpreloaded server waiting for more than 15 s.
                "--preload",
                "--no-control-socket",
            ],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for(port, proc)
        ready = Server(f"http://127.0.0.1:{port}", seed, log)
        _wait_ready(ready, proc)
        yield ready
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def _wait_ready(server: Server, proc: subprocess.Popen, timeout: float = 60) -> None:
    """Until a worker answers an authenticated read from the database with 200: the port
    opens as soon as the master binds it, long before a worker has loaded Django."""
    url = f"{server.url}/api/attempts/{server.seed['attempt']}/"
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            pytest.fail(f"gunicorn exited with {proc.returncode}: {server.log.read_text()[-3000:]}")
        try:
            if httpx.get(url, headers=server.headers(), timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    pytest.fail(f"gunicorn not ready within {timeout} s: {server.log.read_text()[-3000:]}")


def wait_until(what: str, check, timeout: float = 10):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    pytest.fail(f"{what}: not within {timeout} s")
