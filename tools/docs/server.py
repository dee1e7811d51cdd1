"""A Burn-in server on the demo data, in a folder of its own, for the docs' examples and
screenshots.

`make run` serves the developer's own db.sqlite3, which the docs must not touch (and may
not exist). This makes what `make run` makes, in a temporary folder: a fresh SQLite file,
migrated, with the hardware catalog, the courses, the tracks and the demo accounts, then
`runserver` on a free port of 127.0.0.1 with the embedded defaults (DEBUG on, Celery
in-process, a memory cache, mail to the console): loaded by `manage.py prepare` as `make
run` loads, and answering in 12-13 s.

    with demo_server() as base_url:   # "http://127.0.0.1:PORT"
        ...
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def demo_env(folder: Path) -> dict[str, str]:
    """The embedded defaults, on a database file in `folder`: whatever the caller's
    environment points at (CI's PostgreSQL pass, a broker) is left out."""
    env = {k: v for k, v in os.environ.items() if k not in {"DJANGO_SETTINGS_MODULE"}}
    env.update(
        DATABASE_URL=f"sqlite:///{folder / 'db.sqlite3'}",
        DJANGO_SETTINGS_MODULE="config.settings",
        DEBUG="1",
        CELERY_BROKER_URL="",
        CELERY_RESULT_BACKEND="",
        CACHE_URL="",
        EMAIL_URL="console://",
        PYTHONPATH=str(ROOT),
    )
    return env


def prepare(env: dict[str, str]) -> None:
    """`manage.py prepare`, as `make run` runs it: migrate and load, in one process."""
    subprocess.run(  # noqa: S603 - our own interpreter and manage.py
        [sys.executable, "manage.py", "prepare"],
        cwd=ROOT,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )


def wait_for(url: str, proc: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=2):  # noqa: S310 - our URL
                return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"the server did not answer at {url} within {seconds} s")


@contextmanager
def demo_server() -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="burnin-docs-") as tmp:
        env = demo_env(Path(tmp))
        prepare(env)
        port = free_port()
        proc = subprocess.Popen(  # noqa: S603
            [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            wait_for(url, proc)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
