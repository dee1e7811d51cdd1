"""SQLite, the embedded default, survives concurrent writers.

A real server (`runserver`, threaded) on a FILE-backed SQLite database takes 20 answer
submissions at once. Without the SQLite OPTIONS in config/settings.py (BEGIN IMMEDIATE,
a 20 s busy timeout, WAL) most of them fail with 500 "database is locked"; with them every
one is answered 2xx or 4xx. The in-memory test database would show neither.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.db_independent  # a file-backed SQLite server of its own

ROOT = Path(__file__).resolve().parents[2]
WRITERS = 20

# Settings the test decides for the server; anything else the shell exports is kept.
DROPPED_ENV = {
    "DATABASE_URL",
    "DEBUG",
    "EMAIL_URL",
    "CACHE_URL",
    "CELERY_BROKER_URL",
    "CELERY_RESULT_BACKEND",
}

SETUP = """
import json
from django.contrib.auth import get_user_model
from assess.services.quizzes import QuizSpec, SlotSpec, quiz_create
from problems.engine.registry import all_templates

User = get_user_model()
staff = User.objects.create_user("staff", password="staff-pass-123", is_staff=True)
User.objects.create_user("racer", password="racer-pass-123")
slugs = sorted(t.slug for t in all_templates())[:{writers}]
spec = QuizSpec(
    title="Race", mode="practice", slots=[SlotSpec(templates=[slug]) for slug in slugs]
)
print(json.dumps({{"quiz": quiz_create(user=staff, spec=spec).pk}}))
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_env(db_path: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
    env.update(
        DATABASE_URL=f"sqlite:///{db_path}",
        DEBUG="1",
        DJANGO_SETTINGS_MODULE="config.settings",
        PYTHONUNBUFFERED="1",
    )
    env.update(extra or {})
    return env


def manage(env: dict[str, str], *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def call(port: int, method: str, path: str, body=None, token: str | None = None):
    """(status, parsed JSON body or raw text) for one request to the server."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    try:
        conn.request(method, path, None if body is None else json.dumps(body), headers)
        response = conn.getresponse()
        text = response.read().decode(errors="replace")
    finally:
        conn.close()
    try:
        return response.status, json.loads(text)
    except ValueError:
        return response.status, text


def wait_until_up(port: int, server: subprocess.Popen, deadline: float) -> None:
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"runserver exited with {server.returncode}")
        try:
            if call(port, "GET", "/healthz")[0] == 200:
                return
        except OSError:
            time.sleep(0.1)
    pytest.fail("runserver did not answer within 20 s")


def an_answer(part: dict) -> str:
    """A readable (so stored and graded) but almost surely wrong answer for a part."""
    if part["kind"] == "choice":
        return part["choices"][0]
    if part["kind"] == "integer":
        return "1"
    return f"1 {part['unit']}".strip()


def race(tmp_path: Path, extra_env: dict[str, str] | None = None) -> list[tuple[int, str]]:
    """Migrate a fresh file database, serve it, and submit WRITERS answers at once to
    different questions of one attempt. Returns (status, body excerpt) per submission,
    with the server's output appended as a last (0, output) entry."""
    env = server_env(tmp_path / "db.sqlite3", extra_env)
    manage(env, "migrate", "--noinput")
    setup = manage(env, "shell", "-c", SETUP.format(writers=WRITERS))
    quiz = json.loads(setup.strip().splitlines()[-1])["quiz"]

    port = free_port()
    log = tmp_path / "server.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_until_up(port, server, time.monotonic() + 20)
        status, body = call(
            port, "POST", "/api/auth/token/", {"username": "racer", "password": "racer-pass-123"}
        )
        assert status == 200, body
        token = body["token"]
        status, attempt = call(port, "POST", f"/api/quizzes/{quiz}/attempts/", token=token)
        assert status == 201, attempt
        targets = [(q["id"], p) for q in attempt["questions"] for p in q["parts"]]
        assert len(targets) >= WRITERS

        results: list[tuple[int, str] | None] = [None] * WRITERS
        start = threading.Barrier(WRITERS)

        def submit(i: int) -> None:
            question, part = targets[i]
            payload = {
                "question": question,
                "part": part["name"],
                "answer": an_answer(part),
                "idempotency_key": f"race-{i}",
            }
            start.wait()
            try:
                status, body = call(
                    port, "POST", f"/api/attempts/{attempt['id']}/responses/", payload, token
                )
                results[i] = (status, str(body)[:200])
            except OSError as exc:  # a dropped connection is a failure too
                results[i] = (599, repr(exc))

        threads = [threading.Thread(target=submit, args=(i,)) for i in range(WRITERS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    return [*results, (0, log.read_text())]


def test_twenty_concurrent_submissions_on_sqlite_get_no_5xx(tmp_path):
    *results, (_, server_output) = race(tmp_path)
    statuses = [status for status, _ in results]
    print("statuses:", sorted(statuses))
    failures = [(s, body) for s, body in results if not 200 <= s < 500]
    assert failures == [], failures
    assert "database is locked" not in server_output
    # Most submissions were stored and graded, so the writers really did race.
    assert sum(200 <= s < 300 for s in statuses) >= WRITERS // 2, results
