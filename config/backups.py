"""Backups that restore (issue 44): the database to one file and back.

PostgreSQL: `pg_dump --format=custom` (one consistent snapshot: every transaction
committed before it began, nothing after, however busy the service is) and `pg_restore`
into an empty database. SQLite (the embedded default): the online backup API, which
copies a consistent image while other connections keep writing. The file says which it
is by its first bytes, and a restore refuses a file of the other engine, a missing file,
or a target database that already holds tables (unless `replace`), before touching
anything. A backup is written beside its destination and renamed into place, so a
failed run never leaves a half file under the name asked for.

The database is described as Django describes it (a settings dict, or a URL parsed by
dj-database-url), so a restore can go into another database than the service's.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
from pathlib import Path

PG_MAGIC = b"PGDMP"
SQLITE_MAGIC = b"SQLite format 3\x00"


class BackupError(Exception):
    """Refused before anything changed; the message says why."""


def database(url: str | None, *, close: bool = False) -> dict:
    """The database a command works on: `url` parsed as dj-database-url parses it, or
    the service's own (its connection closed first with `close`, so that a restore does
    not race this process's own connection)."""
    if url:
        import dj_database_url

        return dj_database_url.parse(url)
    from django.db import connections

    if close:
        connections["default"].close()
    return connections["default"].settings_dict


DATABASE_URL_HELP = "Another database than the service's (dj-database-url form)."


def engine_of(db: dict) -> str:
    engine = db["ENGINE"]
    if engine.endswith("sqlite3"):
        return "sqlite"
    if engine.endswith("postgresql"):
        return "postgresql"
    raise BackupError(f"no backup for the database engine {engine}")


def _pg_env(db: dict) -> dict:
    env = {**os.environ}
    if db.get("PASSWORD"):
        env["PGPASSWORD"] = str(db["PASSWORD"])
    return env


def _pg_args(db: dict) -> list[str]:
    args = []
    if db.get("HOST"):
        args += ["--host", str(db["HOST"])]
    if db.get("PORT"):
        args += ["--port", str(db["PORT"])]
    if db.get("USER"):
        args += ["--username", str(db["USER"])]
    return args


def _run(cmd: list[str], env: dict) -> None:
    try:
        # A list of arguments, no shell: file names and database names stay arguments.
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)  # noqa: S603
    except FileNotFoundError as exc:
        raise BackupError(f"{cmd[0]} is not installed here: {exc}") from None
    if done.returncode != 0:
        raise BackupError(f"{cmd[0]} failed: {done.stderr.strip()[:2000]}")


def _sqlite(db: dict) -> sqlite3.Connection:
    name = str(db["NAME"])
    return sqlite3.connect(name, uri=name.startswith("file:"))


def backup(db: dict, output: Path) -> int:
    """Write the database to `output`; its size in bytes."""
    engine = engine_of(db)
    partial = output.with_name(output.name + ".partial")
    partial.unlink(missing_ok=True)
    if engine == "postgresql":
        cmd = ["pg_dump", "--format=custom", "--no-owner", "--no-privileges"]
        _run([*cmd, *_pg_args(db), "--file", str(partial), str(db["NAME"])], _pg_env(db))
    else:
        source, target = _sqlite(db), sqlite3.connect(partial)
        try:
            source.backup(target)
        finally:
            target.close()
            source.close()
    partial.replace(output)
    return output.stat().st_size


def _tables(db: dict) -> int:
    if engine_of(db) == "sqlite":
        conn = _sqlite(db)
        try:
            return conn.execute(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' "
                "AND name NOT LIKE 'sqlite_%'"
            ).fetchone()[0]
        finally:
            conn.close()
    import psycopg

    conninfo = psycopg.conninfo.make_conninfo(
        dbname=db["NAME"], host=db.get("HOST") or None, port=db.get("PORT") or None,
        user=db.get("USER") or None, password=db.get("PASSWORD") or None,
    )  # fmt: skip
    with psycopg.connect(conninfo, connect_timeout=10) as conn:
        return conn.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchone()[0]


def restore(db: dict, source: Path, *, replace: bool = False) -> None:
    """Load `source` into the database `db`, which must hold no tables (or `replace`)."""
    engine = engine_of(db)
    if not source.is_file():
        raise BackupError(f"{source}: no such file")
    with source.open("rb") as f:
        head = f.read(len(SQLITE_MAGIC))
    kind = "postgresql" if head.startswith(PG_MAGIC) else "sqlite" if head == SQLITE_MAGIC else None
    if kind is None:
        raise BackupError(f"{source}: not a backup this command wrote")
    if kind != engine:
        raise BackupError(f"{source} is a {kind} backup; this database is {engine}")
    if not replace and _tables(db):
        raise BackupError(
            "the target database already holds tables: restore into a new one, or pass "
            "--replace to overwrite it"
        )
    if engine == "postgresql":
        cmd = ["pg_restore", "--exit-on-error", "--no-owner", "--no-privileges"]
        if replace:
            cmd += ["--clean", "--if-exists"]
        _run([*cmd, *_pg_args(db), "--dbname", str(db["NAME"]), str(source)], _pg_env(db))
        return
    backup_file, target = sqlite3.connect(source), _sqlite(db)
    try:
        backup_file.backup(target)
    finally:
        target.close()
        backup_file.close()
