"""The app served for the contract tests: gunicorn in its own process, on a free port of
127.0.0.1, against a database of its own.

Not pytest-django's live_server: that serves the test database, which the rest of the suite
flushes and fills around every test, so what the contract runs create (enrolments, quizzes,
answers) would leak into other tests or vanish mid-run. A process of its own is also what a
client author meets: a real WSGI server with DEBUG off.

The database follows the suite's: a temporary SQLite file in the embedded pass, and in the
PostgreSQL pass of .ci/run a fresh database on the same server, dropped afterwards.
"""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LISTENING = re.compile(r"Listening at: (http://127\.0\.0\.1:\d+)")
CLIENT_ERROR = re.compile(r"^(?!Internal Server Error)[A-Z][A-Za-z -]+: /")
# Sign-in throttles raised for this server only: schemathesis posts to the token endpoint
# many times from one address, which at the real rates (50 per 15 minutes per IP) would
# lock every account out for the rest of the run.
GENEROUS = "100000/15m"


def _database(base: Path) -> tuple[str, callable]:
    """A DATABASE_URL for the served app, and how to drop it afterwards."""
    from django.conf import settings

    db = settings.DATABASES["default"]
    if not db["ENGINE"].endswith("postgresql"):
        return f"sqlite:///{base / 'contract.sqlite3'}", lambda: None

    import psycopg

    name = f"burnin_contract_{secrets.token_hex(4)}"
    conninfo = {
        "host": db.get("HOST") or "127.0.0.1",
        "port": db.get("PORT") or 5432,
        "user": db.get("USER") or "postgres",
        "password": db.get("PASSWORD") or None,
    }
    with psycopg.connect(dbname="postgres", autocommit=True, **conninfo) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')

    def drop() -> None:
        with psycopg.connect(dbname="postgres", autocommit=True, **conninfo) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    password = f":{conninfo['password']}" if conninfo["password"] else ""
    url = f"postgres://{conninfo['user']}{password}@{conninfo['host']}:{conninfo['port']}/{name}"
    return url, drop


def _die_with_parent() -> None:
    """Linux: the server gets SIGTERM if the test process dies without its teardown."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


@dataclass
class LiveApp:
    base: Path
    url: str = ""
    env: dict = field(default_factory=dict)
    seed: dict = field(default_factory=dict)
    log: Path | None = None
    _proc: subprocess.Popen | None = None
    _drop: callable = None

    def start(self, timeout: float = 90) -> LiveApp:
        database_url, self._drop = _database(self.base)
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings_test",
            "DATABASE_URL": database_url,
            "CONN_MAX_AGE": "0",
            # The production shape: DEBUG off (so a real secret and a mail URL), plain HTTP.
            "DEBUG": "0",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "EMAIL_URL": "console://",
            "SECURE_SSL_REDIRECT": "0",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            # Tasks run in-process, whatever broker the suite's pass points at: no worker
            # consumes this server's queue.
            "CELERY_BROKER_URL": "",
            "CELERY_RESULT_BACKEND": "",
            "THROTTLE_SIGN_IN_USERNAME": GENEROUS,
            "THROTTLE_SIGN_IN_IP": GENEROUS,
            "THROTTLE_PASSWORD_RESET_EMAIL": GENEROUS,
            # A quiet log: failure reports quote its 500 tracebacks (errors_since).
            "LOG_LEVEL": "ERROR",
            "PYTHONWARNINGS": "ignore:No directory at:UserWarning",
        }
        self.env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        seed_file = self.base / "seed.json"
        self.backstage("seed", str(seed_file))
        import json

        self.seed = json.loads(seed_file.read_text())
        self.log = self.base / "server.log"
        log = self.log.open("w")
        self._proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "config.wsgi:application",
                "--bind",
                "127.0.0.1:0",
                "--workers",
                "2",
                "--timeout",
                "60",
                "--no-control-socket",
            ],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=_die_with_parent,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise RuntimeError(f"gunicorn exited:\n{self.log.read_text()[-4000:]}")
            match = LISTENING.search(self.log.read_text())
            if match and self._ready(match.group(1)):
                self.url = match.group(1)
                return self
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"gunicorn did not answer within {timeout} s")

    @staticmethod
    def _ready(url: str) -> bool:
        try:
            with urllib.request.urlopen(f"{url}/api/schema/?format=json", timeout=5) as r:  # noqa: S310
                return r.status == 200
        except OSError:
            return False

    def backstage(self, *args: str) -> str:
        """Run tests/contract/backstage.py against this app's database; its stdout."""
        done = subprocess.run(
            [sys.executable, "-m", "tests.contract.backstage", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=180,
        )
        if done.returncode != 0:
            raise RuntimeError(f"backstage {args} failed:\n{done.stdout}\n{done.stderr}")
        return done.stdout

    def log_size(self) -> int:
        return self.log.stat().st_size if self.log and self.log.exists() else 0

    def errors_since(self, offset: int, limit: int = 8000) -> str:
        """What the server logged after `offset` (its 500s' tracebacks), for reports."""
        if not self.log or not self.log.exists():
            return ""
        with self.log.open("rb") as f:
            f.seek(offset)
            text = f.read().decode(errors="replace")
        # Django logs every 4xx as a warning line ("Not Found: /api/..."): keep the rest.
        text = "\n".join(line for line in text.splitlines() if not CLIENT_ERROR.match(line))
        text = text.strip()
        return text if len(text) <= limit else "...\n" + text[-limit:]

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(timeout=10)
        self._proc = None
        if self._drop is not None:
            self._drop()
            self._drop = None
