"""Autovacuum's work during a bench, done by the bench when the server does not do it.

A production PostgreSQL runs autovacuum (docker-compose.yml's does: the server's
default). This machine's server has it off, and without it nothing ever analyzes a
table the bench fills: a statement prepared while a table was small (the service's own,
after five runs on a connection, and each foreign key's check, on its first) keeps the
plan made for that size, and a plan that scans a small table whole scans it whole at
20,000 rows. The exam bench's finish, whose mastery release marks the answers it
applied by id, read the whole responses table that way (624 pages a statement, 4 ms,
where 0.4 was due) from the second exam size on: a bench of a server no deployment runs.

So, when the server's `autovacuum` is off, a thread does what the autovacuum launcher
would, by the server's own settings: every `autovacuum_naptime` it vacuums each table
whose dead or inserted rows passed the vacuum thresholds and analyzes each whose changes
since its last analyze passed the analyze threshold (PostgreSQL's rule, as in
autovacuum.c: base threshold plus scale factor times reltuples, a never-vacuumed table
counting as empty), with autovacuum's cost delay. Its CPU is the database's, as an
autovacuum worker's would be. When the server runs autovacuum, this does nothing.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

# Each user table with what autovacuum's rule says of it now, by the server's settings.
DUE = """
SELECT st.schemaname, st.relname,
  st.n_dead_tup > current_setting('autovacuum_vacuum_threshold')::float
    + current_setting('autovacuum_vacuum_scale_factor')::float * greatest(c.reltuples, 0)
  OR st.n_ins_since_vacuum > current_setting('autovacuum_vacuum_insert_threshold')::float
    + current_setting('autovacuum_vacuum_insert_scale_factor')::float * greatest(c.reltuples, 0),
  st.n_mod_since_analyze > current_setting('autovacuum_analyze_threshold')::float
    + current_setting('autovacuum_analyze_scale_factor')::float * greatest(c.reltuples, 0)
FROM pg_stat_user_tables st JOIN pg_class c ON c.oid = st.relid
"""


def autovacuum_pass(conn) -> list[str]:
    """One visit of the database as an autovacuum worker makes it; returns what it did,
    one `VACUUM`, `ANALYZE` or `VACUUM ANALYZE` of a table a line. `conn`: psycopg, in
    autocommit."""
    from psycopg import sql

    done = []
    for schema, name, vacuum, analyze in conn.execute(DUE).fetchall():
        verb = " ".join(word for word, due in (("VACUUM", vacuum), ("ANALYZE", analyze)) if due)
        if verb:
            table = sql.Identifier(schema, name)
            conn.execute(sql.SQL(verb + " {}").format(table))
            done.append(f"{verb} {schema}.{name}")
    return done


@contextmanager
def autovacuum(database_url: str, *, naptime: float | None = None) -> Iterator[None]:
    """For the block's duration, autovacuum's passes over the database at `database_url`
    if its server does not make them (see the module's docstring), every `naptime`
    seconds (default: the server's `autovacuum_naptime`)."""
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        on, server_naptime, delay = conn.execute(
            "SELECT current_setting('autovacuum')::bool, "
            "(SELECT setting::float FROM pg_settings WHERE name = 'autovacuum_naptime'), "
            "current_setting('autovacuum_vacuum_cost_delay')"
        ).fetchone()
    if on:
        yield
        return
    naptime = server_naptime if naptime is None else naptime
    stop = threading.Event()
    log: list[str] = []

    def launcher() -> None:
        with psycopg.connect(database_url, autocommit=True) as conn:
            conn.execute("SELECT set_config('vacuum_cost_delay', %s, false)", [delay])
            while not stop.wait(naptime):
                log.extend(autovacuum_pass(conn))

    thread = threading.Thread(target=launcher, name="autovacuum stand-in", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        print(
            f"autovacuum (off on the server: the bench's stand-in, every {naptime:.0f} s): "
            f"{len(log)} table visits" + (f" ({'; '.join(log)})" if log else ""),
            file=sys.stderr,
        )
