"""What one request wrote: the row count of every table before and after it, every
INSERT, UPDATE or DELETE it sent, and the after-commit work it queued.

Counts alone miss an UPDATE, and the statements alone trust our reading of SQL, so the
sweep asks both. Counting is one UNION ALL query over every table of the database
(Django's bookkeeping and the sessions table included), before and after.

The one write a read may make: a learner's attempt page closes their own attempt once its
deadline has passed (frontend/views/take.py, through assess.services.attempts, so the
page can say the saved answers were submitted). Allowed exactly: UPDATE statements on
the attempts table, when an open attempt was past its deadline before the request, and
then only such attempts' rows may differ after it, each now expired; no other table's
rows or counts may change. The close's after-commit work (the certification check, an
LMS grade) is what any close queues, and is allowed with it.

Sessions: no read may add or remove a session row (an anonymous crawler would fill the
table), so django_session is counted like every table. A signed-in read may update its
caller's own session row: a page that shows a flashed message clears it there. That
row is the browser's state kept on the server, as a cookie would be, not the service's
data; so UPDATEs of django_session pass when the caller's session key is given and no
other session row differs afterwards.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.contrib.sessions.models import Session
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from assess.models import Attempt

_UPDATE_SET = re.compile(r"\bUPDATE\s+\"?(\w+)\"?\s+SET\b", re.IGNORECASE)
_INSERT_DELETE = re.compile(r'\b(?:INSERT\s+INTO|DELETE\s+FROM|REPLACE\s+INTO)\s+"?(\w+)"?', re.I)


def written_tables(sql: str) -> set[str]:
    """The tables a statement writes: UPDATE t SET, INSERT INTO t, DELETE FROM t (a
    SELECT ... FOR UPDATE writes nothing)."""
    return set(_UPDATE_SET.findall(sql)) | set(_INSERT_DELETE.findall(sql))


def _counting_sql() -> str:
    quote = connection.ops.quote_name
    return " UNION ALL ".join(
        f"SELECT '{table}', COUNT(*) FROM {quote(table)}"  # noqa: S608 - the database's own names
        for table in sorted(connection.introspection.table_names())
    )


def row_counts() -> dict[str, int]:
    """{table: rows} for every table of the database, in one query."""
    with connection.cursor() as cursor:
        cursor.execute(_counting_sql())
        return dict(cursor.fetchall())


def _attempt_rows() -> dict[int, tuple]:
    fields = [f.attname for f in Attempt._meta.concrete_fields]
    return {row[0]: row for row in Attempt.objects.order_by().values_list("pk", *fields)}


def _session_rows() -> dict[str, tuple]:
    return dict(Session.objects.order_by().values_list("session_key", "session_data"))


def writes_of(
    send: Callable[[], object], *, session_key: str | None = None
) -> tuple[object, list[str]]:
    """(what `send` returned, the writes it made that a read may not), per the rule in
    this module's docstring; `session_key` is the caller's session, if signed in."""
    due = set(
        Attempt.objects.filter(
            status=Attempt.Status.OPEN, deadline__lte=timezone.now()
        ).values_list("pk", flat=True)
    )
    counts, attempts, sessions = row_counts(), _attempt_rows(), _session_rows()
    queued = len(connection.run_on_commit)
    with CaptureQueriesContext(connection) as ctx:
        result = send()
    problems = []
    after = row_counts()
    problems += [
        f"{table}: {counts.get(table)} rows before, {after.get(table)} after"
        for table in sorted(set(counts) | set(after))
        if counts.get(table) != after.get(table)
    ]
    allowed = {Attempt._meta.db_table: bool(due), Session._meta.db_table: bool(session_key)}
    for query in ctx.captured_queries:
        for table in sorted(written_tables(query["sql"])):
            if not allowed.get(table):
                problems.append(f"wrote {table}: {query['sql'][:200]}")
    sessions_after = _session_rows()
    problems += [
        f"session {key[:6]}... changed, and it is not the caller's"
        for key in sorted(set(sessions) | set(sessions_after))
        if key != session_key and sessions.get(key) != sessions_after.get(key)
    ]
    attempts_after = _attempt_rows()
    changed = {
        pk
        for pk in set(attempts) | set(attempts_after)
        if attempts.get(pk) != attempts_after.get(pk)
    }
    for pk in sorted(changed - due):
        problems.append(f"attempt {pk} changed, and it was not an open attempt past its deadline")
    for pk in sorted(changed & due):
        if not Attempt.objects.filter(pk=pk, status=Attempt.Status.EXPIRED).exists():
            problems.append(f"attempt {pk} was past its deadline and changed, but is not expired")
    if len(connection.run_on_commit) != queued and not (changed & due):
        problems.append(f"queued {len(connection.run_on_commit) - queued} after-commit task(s)")
    return result, problems
