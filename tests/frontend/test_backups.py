"""The restore drill (issue 44, item 4), on the database the suite runs on (SQLite under
`make test`, PostgreSQL in .ci/run's second pass): a database with attempts and answers,
memo versions, a certificate and LTI state is backed up while answers are still being
written; the backup is restored into a new database; every answer committed before the
backup began is there with the same content, nothing is there that the source never
held, memo versions, certificates and LTI registrations match by count and checksum; the
service starts on the restored database and the certificate still verifies. And the
refusals: a file of the other engine, a non-backup, a target that holds tables."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, connections
from django.utils import timezone

from assess.services.attempts import attempt_start
from assess.services.responses import response_submit
from capstone.models import Capstone, Memo, MemoVersion
from certify.models import Certificate
from tests.factories import CourseFactory, QuizFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)  # answers commit as they go
ROOT = Path(__file__).resolve().parents[2]
TABLES = {
    "answers": "SELECT id, question_id, part, raw, correct FROM assess_response ORDER BY id",
    "memo versions": "SELECT id, memo_id, number, markdown FROM capstone_memoversion ORDER BY id",
    "certificates": "SELECT id, holder_id, track_id, status FROM certify_certificate ORDER BY id",
    "lti": "SELECT id, issuer, client_id FROM lti_tool_ltiregistration ORDER BY id",
}


def _rows(cursor, sql: str) -> list[tuple]:
    cursor.execute(sql)
    # Booleans as 0/1: Django's SQLite connection converts them, a bare one does not.
    return [
        tuple(str(int(v)) if isinstance(v, bool) else str(v) for v in row)
        for row in cursor.fetchall()
    ]


def _source(sql: str) -> list[tuple]:
    with connection.cursor() as cursor:
        return _rows(cursor, sql)


def _checksum(rows) -> str:
    return hashlib.sha256(repr(rows).encode()).hexdigest()


def _tracks() -> dict:
    from certify.selectors import tracks_all

    call_command("load_curricula", verbosity=0)
    call_command("load_tracks", verbosity=0)
    return {t.slug: t for t in tracks_all()}


def _world(tracks):
    from lti_tool.models import LtiDeployment, LtiRegistration

    learner = UserFactory(username="drill-learner")
    # An exam: its saves never close the part (a practice part closes on a right answer
    # or at the tries ceiling, which would end the writer mid-backup).
    quiz = QuizFactory(mode="exam", slots=[["weights-memory"]])
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    question = attempt.questions.get()
    capstone = Capstone.objects.create(learner=learner, course=CourseFactory(), seed=3)
    memo = Memo.objects.create(capstone=capstone)
    for n in (1, 2):
        MemoVersion.objects.create(memo=memo, number=n, markdown=f"# Plan {n}\n\nGPUs: {n * 8}.")
    track = tracks["fleet-bringup-health"]
    certificate = Certificate.objects.create(
        holder=learner, track=track, expires_at=timezone.now() + timedelta(days=300),
        evidence={"drill": True},
    )  # fmt: skip
    registration = LtiRegistration.objects.create(
        name="Drill LMS", issuer="https://lms.example.edu", client_id="drill-client",
        auth_url="https://lms.example.edu/auth", token_url="https://lms.example.edu/token",
        keyset_url="https://lms.example.edu/jwks",
    )  # fmt: skip
    LtiDeployment.objects.create(registration=registration, deployment_id="d1", is_active=True)
    return attempt, question, certificate


def _writer(attempt, question, stop: threading.Event, written: list[int]) -> None:
    """Wrong answers, each committed on its own, until told to stop."""
    part = question.answers[0]["name"]
    try:
        n = 0
        while not stop.is_set() and n < 400:
            n += 1
            response_submit(
                attempt=attempt, question=question, part=part, text=f"{n}.25 GB",
                idempotency_key=f"drill-{n}",
            )  # fmt: skip
            written.append(n)
    finally:
        connections.close_all()


def _target():
    """A new, empty database of the suite's engine: (settings dict, URL, connect, drop)."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        path = Path(tempfile.mkdtemp()) / "restored.db"
        return (
            {"ENGINE": "django.db.backends.sqlite3", "NAME": str(path)},
            f"sqlite:///{path}",
            lambda: sqlite3.connect(path),
            lambda: path.unlink(missing_ok=True),
        )
    import psycopg

    name = f"burnin_restore_{uuid.uuid4().hex[:12]}"
    auth = {"host": db["HOST"] or None, "port": db["PORT"] or None, "user": db["USER"] or None,
            "password": db["PASSWORD"] or None}  # fmt: skip
    with psycopg.connect(dbname="postgres", autocommit=True, **auth) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')

    def drop():
        with psycopg.connect(dbname="postgres", autocommit=True, **auth) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    user = db["USER"] or "postgres"
    password = f":{db['PASSWORD']}" if db["PASSWORD"] else ""
    url = f"postgres://{user}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{name}"
    return (
        {**db, "NAME": name},
        url,
        lambda: psycopg.connect(dbname=name, **auth),
        drop,
    )


@pytest.mark.skipif(
    connection.vendor == "sqlite",
    reason="the suite's SQLite is in memory: test_the_restore_drill_on_sqlite uses a file",
)
def test_the_restore_drill(tmp_path):
    run_drill(tmp_path)


@pytest.mark.db_independent
def test_the_restore_drill_on_sqlite(tmp_path):
    """The same drill in a process of its own on a SQLite file (as `make run` keeps it),
    migrated first: the suite's in-memory database cannot take a second writer."""
    source = tmp_path / "source.db"
    script = (
        "import django; django.setup()\n"
        "from pathlib import Path\n"
        "from django.core.management import call_command\n"
        "call_command('migrate', verbosity=0)\n"
        "from tests.frontend.test_backups import run_drill\n"
        f"run_drill(Path({str(tmp_path)!r}))\n"
        "print('drill passed')\n"
    )
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{source}", "WARM_UP": "0",
           "DJANGO_SETTINGS_MODULE": "config.settings", "CELERY_BROKER_URL": "",
           "CACHE_URL": "locmem://"}  # fmt: skip
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0 and "drill passed" in out.stdout, out.stderr[-3000:]


def run_drill(tmp_path: Path) -> None:
    """Back up while answers are written, restore into a new database, compare, start."""
    attempt, question, certificate = _world(_tracks())
    stop, written = threading.Event(), []
    writer = threading.Thread(target=_writer, args=(attempt, question, stop, written))
    writer.start()
    while len(written) < 5:  # answers are being written when the backup starts
        writer.join(0.01)
    before = {name: _source(sql) for name, sql in TABLES.items()}
    call_command("backup", "--output", str(tmp_path / "burnin.backup"))
    stop.set()
    writer.join(60)
    after = _source(TABLES["answers"])
    assert len(after) > len(before["answers"]) >= 5  # writes went on around the backup

    db, url, connect, drop = _target()
    try:
        call_command("restore", "--input", str(tmp_path / "burnin.backup"), "--database-url", url)
        conn = connect()
        try:
            restored = {name: _rows(conn.cursor(), sql) for name, sql in TABLES.items()}
        finally:
            conn.close()
        answers = restored["answers"]
        missing = set(before["answers"]) - set(answers)
        assert not missing, f"committed before the backup, not restored: {sorted(missing)[:3]}"
        strangers = set(answers) - set(after)
        assert not strangers, f"restored, never in the source: {sorted(strangers)[:3]}"
        for name in ("memo versions", "certificates", "lti"):
            assert len(restored[name]) == len(before[name]) > 0
            assert _checksum(restored[name]) == _checksum(before[name]), name
        # The service starts on the restored database and the certificate verifies.
        script = (
            "import django; django.setup()\n"
            "from django.test import Client\n"
            f"r = Client(HTTP_HOST='localhost').get('/certificates/{certificate.pk}/')\n"
            "print(r.status_code, b'Valid' in r.content)\n"
        )
        env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "config.settings",
               "WARM_UP": "0", "DEBUG": "1", "CELERY_BROKER_URL": ""}  # fmt: skip
        out = subprocess.run(
            [sys.executable, "-c", script], env=env, cwd=ROOT, capture_output=True, text=True
        )
        assert out.stdout.strip().splitlines()[-1] == "200 True", out.stderr[-2000:]
        # A second restore into a database that now holds tables is refused.
        with pytest.raises(CommandError, match="already holds tables") as err:
            call_command(
                "restore", "--input", str(tmp_path / "burnin.backup"), "--database-url", url
            )
        assert err.value.returncode == 2
    finally:
        drop()


def test_files_that_are_no_backup_of_this_engine_are_refused(tmp_path):
    other = tmp_path / "other.backup"
    if connection.vendor == "sqlite":
        other.write_bytes(b"PGDMP" + b"\0" * 64)
        wrong = "is a postgresql backup"
    else:
        sqlite3.connect(other).close()
        other.write_bytes(b"SQLite format 3\x00" + other.read_bytes()[16:])
        wrong = "is a sqlite backup"
    junk = tmp_path / "junk.backup"
    junk.write_text("hello")
    url = "sqlite:///:memory:" if connection.vendor == "sqlite" else "postgres://x@127.0.0.1/none"
    for path, reason in ((other, wrong), (junk, "not a backup"), (tmp_path / "none", "no such")):
        with pytest.raises(CommandError, match=reason) as err:
            call_command("restore", "--input", str(path), "--database-url", url)
        assert err.value.returncode == 2
