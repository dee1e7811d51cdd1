"""What the HTTP benches share: a throwaway PostgreSQL database, the environment that
points the service at it, one step run inside Django, and a gunicorn to drive.

Each bench works in its own database (`<name>_<suffix>`, created, migrated and dropped
with FORCE at the end), so it is safe beside a dev stack and never shares rows with
another run. The server runs the production settings plus the bench's URLs and
throttles that never bite (bench/settings_bench.py), DEBUG=0, with no broker (Celery
in-process).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
GUNICORN = str(ROOT / ".venv/bin/gunicorn")


def db_url(base: str, name: str) -> str:
    parts = urlsplit(base)
    return urlunsplit(parts._replace(path="/" + name))


def admin_sql(base: str, sql: str) -> None:
    """Run one statement on the server's `postgres` database (CREATE/DROP DATABASE)."""
    import psycopg

    with psycopg.connect(db_url(base, "postgres"), autocommit=True) as conn:
        conn.execute(sql)


def bench_env(database_url: str) -> dict[str, str]:
    """The environment of every process of a bench: Django on the bench settings."""
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "bench.settings_bench",
        "DEBUG": "0",
        "SECRET_KEY": "bench-" + secrets.token_urlsafe(32),
        "ALLOWED_HOSTS": "127.0.0.1,localhost,testserver",
        "SECURE_SSL_REDIRECT": "0",
        "EMAIL_URL": "console://",
        "CELERY_BROKER_URL": "",
        "PYTHONPATH": str(ROOT),
        # connections kept for the whole run: no reconnects timed, and cpu_between
        # sees every backend from start to end
        "CONN_MAX_AGE": os.environ.get("CONN_MAX_AGE", "3600"),
    }


@contextmanager
def throwaway_database(base_url: str, suffix: str) -> Iterator[dict[str, str]]:
    """A fresh, migrated database beside `base_url`'s; yields the bench environment
    pointing at it and drops the database on the way out, whatever happened."""
    if not base_url.startswith("postgres"):
        sys.exit("--database-url (or DATABASE_URL) must name a PostgreSQL server")
    name = urlsplit(base_url).path.strip("/") or "burnin"
    db_name = f"{name}_{suffix}"
    admin_sql(base_url, f'DROP DATABASE IF EXISTS "{db_name}" WITH (FORCE)')
    admin_sql(base_url, f'CREATE DATABASE "{db_name}"')
    try:
        env = bench_env(db_url(base_url, db_name))
        migrate = subprocess.run(
            [PY, "manage.py", "migrate", "--noinput"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        if migrate.returncode:
            sys.exit(f"migrate failed:\n{migrate.stderr[-3000:]}")
        yield env
    finally:
        admin_sql(base_url, f'DROP DATABASE IF EXISTS "{db_name}" WITH (FORCE)')


def run_step(script: str, env: dict[str, str], *args: str) -> None:
    """Run `script` (a bench module's path) with `args` in a new process: the steps that
    need Django (fixtures, counts) run apart from the driver, which must not import it."""
    subprocess.run([PY, script, *args], cwd=ROOT, env=env, check=True)


def wait_for(port: int, server: subprocess.Popen, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if server.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {server.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise RuntimeError("gunicorn did not start")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def gunicorn(
    env: dict[str, str], *, workers: int, port: int = 0, extra=(), log: Path | None = None
) -> Iterator[str]:
    """The service on gunicorn (`workers` sync workers unless `extra` says otherwise) on
    `port` (0: a free one); yields its base URL and stops it on the way out. A port
    someone else listens on is refused: the bench would time their server. With `log`,
    the server's output (its JSON request lines) goes to that file, as to a collector."""
    port = port or free_port()
    with socket.socket() as s:
        if s.connect_ex(("127.0.0.1", port)) == 0:
            raise RuntimeError(f"port {port} is taken: pass another --port (or 0)")
    sink = log.open("ab") if log else None
    server = subprocess.Popen(
        [
            GUNICORN,
            "config.wsgi",
            "--config",
            "python:config.gunicorn",  # production's settings file, as the Dockerfile's
            "-w",
            str(workers),
            "-b",
            f"127.0.0.1:{port}",
            "--no-control-socket",
            "--log-level",
            "warning",
            *extra,
        ],
        cwd=ROOT,
        env=env,
        stdout=sink,
        stderr=subprocess.STDOUT if sink else None,
    )
    try:
        wait_for(port, server)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        if sink:
            sink.close()


def cpu_seconds() -> dict[tuple[str, int], float]:
    """CPU seconds used so far by each of the machine's gunicorn and PostgreSQL
    processes, keyed by (kind, pid), from /proc. A bench on a quiet machine reads where
    its cores went: the service's Python, or the database."""
    tick = os.sysconf("SC_CLK_TCK")
    used = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        kind = (
            "gunicorn" if "gunicorn" in cmd else "postgres" if cmd.startswith("postgres") else None
        )
        if kind:
            used[kind, int(pid)] = (int(fields[11]) + int(fields[12])) / tick  # utime + stime
    return used


def cpu_between(before: dict, after: dict) -> dict[str, float]:
    """CPU seconds per kind spent between two cpu_seconds() readings, process by
    process (one that started meanwhile counts whole). A process that ended meanwhile
    takes its time with it, so the benches keep their database connections for the
    whole run (CONN_MAX_AGE in bench_env): summing the totals instead once gave
    PostgreSQL a negative figure, when 60-second connections closed mid-run and their
    backends' hours of CPU left the sum."""
    spent = {"gunicorn": 0.0, "postgres": 0.0}
    for (kind, pid), seconds in after.items():
        spent[kind] += seconds - before.get((kind, pid), 0.0)
    return spent


def settle(database_url: str) -> None:
    """After a bench's preparation, before anything is timed: VACUUM ANALYZE the tables
    that hold rows, then a CHECKPOINT, as pgbench vacuums before it runs. The
    preparation writes thousands of rows (learners, tokens, enrolments) into fresh
    tables; left alone, autovacuum's analyze of them and the checkpoint of their WAL
    land in the first timed run (one run of 100 learners saw its starts' p50 go from
    20 ms to 490 ms).

    A table still empty is left unvacuumed, as a new service's tables are until
    autovacuum first analyzes them. Vacuumed, it is recorded as empty (reltuples 0), and
    a statement prepared while it is (the service's own after five runs on a connection,
    each foreign key's check on its first) keeps a plan that scans it whole as the run
    fills it: the responses table was read whole on every answer and every foreign-key
    check of a mastery event (83-95 pages a statement, after 15 s of answers). Never
    vacuumed, the planner guesses 10 pages or more and takes the indexes; what the run
    grows is analyzed as autovacuum would (bench._autovacuum).
    `tests/bench/test_database_upkeep.py`."""
    import psycopg
    from psycopg import sql

    with psycopg.connect(database_url, autocommit=True) as conn:
        for schema, name in conn.execute(TABLES).fetchall():
            table = sql.Identifier(schema, name)
            if conn.execute(sql.SQL("SELECT EXISTS (SELECT FROM {})").format(table)).fetchone()[0]:
                conn.execute(sql.SQL("VACUUM ANALYZE {}").format(table))
        # a role that may not checkpoint: the vacuum still settles the tables
        with contextlib.suppress(psycopg.errors.InsufficientPrivilege):
            conn.execute("CHECKPOINT")


# The database's own tables (not the catalogs').
TABLES = "SELECT schemaname, relname FROM pg_stat_user_tables"
