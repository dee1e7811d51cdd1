"""Django's database sessions, their one read on every signed-in request written as SQL.

Every page and htmx request of a signed-in browser reads its session row first. Through
the ORM (`Session.objects.get(session_key=..., expire_date__gt=now)`) that read cost
about 0.36 ms of a worker's CPU, 0.22 ms of it building the query for a lookup by primary
key (bench/README.md, the web-page exam). This store is Django's own
(`django.contrib.sessions.backends.db`: the table, the writes, the expiry, the signing
of the data) with only that read replaced by one statement, its row turned into the
model's instance by api_common.rows as the ORM would (tests/accounts/
test_request_reads.py holds it to the ORM's read; the SQL table lists it).
"""

from __future__ import annotations

import functools

from django.contrib.sessions.backends import db
from django.contrib.sessions.models import Session
from django.db import connection
from django.utils import timezone

from api_common.rows import Columns, fetch


@functools.cache  # built at first use, once the apps are loaded
def _read() -> tuple[Columns, str]:
    meta, quote = Session._meta, connection.ops.quote_name
    columns = Columns(Session, "s")
    key, expires = (quote(meta.get_field(n).column) for n in ("session_key", "expire_date"))
    # identifiers from the model's metadata; the key and the time are bound parameters
    sql = f"SELECT {columns.sql} FROM {quote(meta.db_table)} s WHERE s.{key} = %s AND s.{expires} > %s"  # noqa: E501, S608
    return columns, sql


def session_row(session_key: str, now) -> Session | None:
    """The unexpired session row under `session_key` at `now`, or None."""
    columns, sql = _read()
    expires = Session._meta.get_field("expire_date").get_db_prep_value(now, connection)
    rows = fetch(sql, [session_key, expires])
    return columns.load(rows[0]) if rows else None


class SessionStore(db.SessionStore):
    def _get_session_from_db(self):
        """As Django's: the row if it is there and unexpired; otherwise None, and the
        key is forgotten (a new one is made if the session is then written)."""
        row = session_row(self.session_key, timezone.now())
        if row is None:
            self._session_key = None
        return row
