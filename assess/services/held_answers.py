"""An answer to a quiz whose feedback waits, stored in one statement.

An exam's answer (any quiz with deferred feedback whose questions are fixed: not
practice, where a question can be replaced by a new variant) is decided on the attempt
alone. Its parts take up to SAVES_CEILING saves (the last one counts), none is ever
revealed (reveals need immediate feedback), and no save is mastery evidence until the
grades are released; what can refuse it is the attempt's status and deadline as stored,
the part's saves, and a key used before. So where response_submit's general path opens
a transaction, locks the attempt, reads the question's tries and the learner's skill
rows, inserts and commits, this path is one statement that commits on its own: a CTE
that locks the attempt's row if it still takes answers (and the part a save), an INSERT
from it whose ON CONFLICT on the attempt's keys does nothing, and (on PostgreSQL) the
question's earlier tries for the result beside the new row. An exam's answer was seven
round trips; it is three (the token, the gated read of the question, this statement).
SQLite cannot put an INSERT in a CTE: there the tries are read by a second statement
after the first.

Race-safe as the general path is: the statement locks the attempt's row, so a finish, an
expiry or an extension that comes after it waits for it and then reads the answer; and
it never waits for one that came first. A row another writer holds is skipped (SKIP
LOCKED), the CTE gives no row, nothing is stored, and the general path queues on the
lock and decides on the row as committed. Not waiting is what lets one statement read
the tries too: a statement's reads are as of its start (PostgreSQL's READ COMMITTED; a
locking read that waited re-checks only the row it locked, assess.selectors.locked says
more), so tries read after a wait would miss what the writer it waited on committed.

When it stores nothing (the attempt is over, busy, or the key was used before), the
caller takes the general path, which stores, refuses, replays or reports the mismatch
as it always has: this path only ever stores what the general path would have stored.
"""

from __future__ import annotations

import functools
from datetime import datetime
from typing import Any

from django.db import connection

from api_common.rows import Columns, ctes_take_writes, fetch, for_update_of
from assess.models import RESPONSE_KEYS, Attempt, Question, Response
from assess.scoring import SAVES_CEILING
from assess.selectors.attempt_rows import TRY_FIELDS, question_tries


def takes_held_answers(attempt: Attempt, question: Question) -> bool:
    """Does an answer to this question go by the attempt alone (the module docstring)?"""
    quiz = attempt.quiz
    return quiz.feedback_deferred and quiz.mode != quiz.Mode.PRACTICE and question.active


def _reads_tries_too() -> bool:
    """Does the statement read the question's tries as well? PostgreSQL takes an INSERT
    in a CTE (and SKIP LOCKED, without which the read could be stale: module docstring);
    SQLite takes neither."""
    return ctes_take_writes()


@functools.cache
def _statement(columns: tuple[str, ...], with_tries: bool) -> str:
    quote = connection.ops.quote_name
    meta = Response._meta
    attempts = quote(Attempt._meta.db_table)
    fields = [meta.get_field(name) for name in columns]
    names = ", ".join(quote(f.column) for f in fields)
    marks = ", ".join(["%s"] * len(fields))
    keys = ", ".join(quote(meta.get_field(c).column) for c in RESPONSE_KEYS)
    pk = quote(meta.pk.column)
    # identifiers from the models' metadata; every value is a bound parameter.
    lock = for_update_of("a") + (" SKIP LOCKED" if with_tries else "")
    # The part's saves counted on the (question, part) index: at SAVES_CEILING the CTE
    # gives no row and the general path refuses with the ceiling's message.
    saves = (
        f"(SELECT COUNT(*) FROM {quote(meta.db_table)} s WHERE "  # noqa: S608
        f"s.{quote(meta.get_field('question').column)} = %s AND "
        f"s.{quote(meta.get_field('part').column)} = %s AND "
        f"s.{quote(meta.get_field('valid').column)} = %s) < %s"
    )
    attempt = (
        f"a AS (SELECT a.id FROM {attempts} a WHERE a.id = %s AND a.status = %s "  # noqa: S608
        f"AND (a.deadline IS NULL OR a.deadline > %s) AND {saves}{lock})"
    )
    if not with_tries:
        # "WHERE 1 = 1": SQLite reads an INSERT ... SELECT's ON CONFLICT as a join's
        # without it.
        return (
            f"WITH {attempt} INSERT INTO {quote(meta.db_table)} ({names}) "  # noqa: S608
            f"SELECT {marks} FROM a WHERE 1 = 1 ON CONFLICT ({keys}) DO NOTHING RETURNING {pk}"
        )
    # The new row's id on every row, beside one earlier try each (or NULLs, for none);
    # no row at all when nothing was stored. The SELECT does not see the CTE's INSERT.
    return (
        f"WITH {attempt}, n AS (INSERT INTO {quote(meta.db_table)} ({names}) "  # noqa: S608
        f"SELECT {marks} FROM a ON CONFLICT ({keys}) DO NOTHING RETURNING {pk}) "
        f"SELECT n.{pk}, {_tries().sql} FROM n LEFT JOIN {quote(meta.db_table)} r "
        f"ON r.{quote(meta.get_field('question').column)} = %s "
        f"AND r.{quote(meta.get_field('valid').column)} = %s"
    )


@functools.cache
def _tries() -> Columns:
    return Columns(Response, "r", only=TRY_FIELDS)  # what the answer's body lists


def held_answer_store(
    *, attempt: Attempt, values: dict[str, Any], now: datetime
) -> tuple[int, list[Response]] | None:
    """INSERT the response (values by attname, as api_common.rows.insert takes them) if the
    attempt is open and before its deadline at `now`, as stored, not held by another
    writer, its key is new and its part has kept fewer than SAVES_CEILING saves. Returns
    the new row's id and the question's other valid tries; or None when nothing was
    stored (the general path says why)."""
    columns = tuple(values)
    fields = [Response._meta.get_field(name) for name in columns]
    deadline = Attempt._meta.get_field("deadline").get_db_prep_value(now, connection)
    params = [
        attempt.pk,
        Attempt.Status.OPEN,
        deadline,
        values["question_id"],
        values["part"],
        True,
        SAVES_CEILING,
        *(f.get_db_prep_save(values[f.attname], connection) for f in fields),
    ]
    with_tries = _reads_tries_too()
    if with_tries:
        params += [values["question_id"], True]
    rows = fetch(_statement(columns, with_tries), params)
    if not rows:
        return None
    pk = rows[0][0]
    if not with_tries:
        return pk, [r for r in question_tries(values["question_id"]) if r.pk != pk]
    columns = _tries()
    found = 1 + columns.attnames.index(Response._meta.pk.attname)  # NULL: no earlier try
    return pk, [columns.load(row, 1) for row in rows if row[found] is not None]
