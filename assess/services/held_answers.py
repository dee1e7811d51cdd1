"""An answer to a quiz whose feedback waits, stored in one statement.

An exam's answer (any quiz with deferred feedback whose questions are fixed: not
practice, where a question can be replaced by a new variant) is decided on the attempt
alone. Its parts take any number of saves (the last one counts), none is ever revealed
(reveals need immediate feedback), and no save is mastery evidence until the grades are
released; what can refuse it is the attempt's status and deadline as stored, and a key
used before. So where response_submit's general path opens a transaction, locks the
attempt, reads the question's tries and the learner's skill rows, inserts and commits,
this path is one statement that commits on its own: a CTE that locks the attempt's row
if it still takes answers, and an INSERT from it whose ON CONFLICT on the attempt's keys
does nothing. An exam's answer was seven round trips; it is four (the token, the gated
read of the question, this statement, the question's tries after it for the result).

Race-safe as the general path is: the row lock queues this statement behind a finish,
an expiry or an extension holding the attempt, and a locking read that waited re-checks
its conditions on the row as committed (PostgreSQL's READ COMMITTED), so an answer never
lands in an attempt that closed first; a finish that waited on this statement reads the
answer in its next statement. The statement reads no other table, which is what makes
one statement enough (assess.selectors.locked says why a locking read sees other tables
as they were before its wait). SQLite has no row locks; its writers take the database in
turn, and a single statement is its own transaction.

When it stores nothing (the attempt is over, or the key was used before), the caller
takes the general path, which refuses, replays or reports the mismatch as it always has:
this path only ever stores what the general path would have stored.
"""

from __future__ import annotations

import functools
from datetime import datetime
from typing import Any

from django.db import connection

from assess.models import Attempt, Question, Response
from config.rows import fetch, for_update_of


def takes_held_answers(attempt: Attempt, question: Question) -> bool:
    """Does an answer to this question go by the attempt alone (the module docstring)?"""
    quiz = attempt.quiz
    return quiz.feedback_deferred and quiz.mode != quiz.Mode.PRACTICE and question.active


@functools.cache
def _statement(columns: tuple[str, ...]) -> str:
    quote = connection.ops.quote_name
    meta = Response._meta
    attempts = quote(Attempt._meta.db_table)
    fields = [meta.get_field(name) for name in columns]
    names = ", ".join(quote(f.column) for f in fields)
    marks = ", ".join(["%s"] * len(fields))
    keys = ", ".join(quote(meta.get_field(c).column) for c in ("attempt", "idempotency_key"))
    # identifiers from the models' metadata; every value is a bound parameter.
    # "WHERE 1 = 1": SQLite reads an INSERT ... SELECT's ON CONFLICT as a join's without it.
    return (
        f"WITH a AS (SELECT a.id FROM {attempts} a WHERE a.id = %s AND a.status = %s "  # noqa: S608
        f"AND (a.deadline IS NULL OR a.deadline > %s){for_update_of('a')}) "
        f"INSERT INTO {quote(meta.db_table)} ({names}) SELECT {marks} FROM a WHERE 1 = 1 "
        f"ON CONFLICT ({keys}) DO NOTHING RETURNING {quote(meta.pk.column)}"
    )


def held_answer_store(*, attempt: Attempt, values: dict[str, Any], now: datetime) -> int | None:
    """INSERT the response (values by attname, as config.rows.insert takes them) if the
    attempt is open and before its deadline at `now`, as stored, and its key is new: the
    new row's id, else None (nothing stored; the general path says why)."""
    columns = tuple(values)
    fields = [Response._meta.get_field(name) for name in columns]
    deadline = Attempt._meta.get_field("deadline").get_db_prep_value(now, connection)
    params = [
        attempt.pk,
        Attempt.Status.OPEN,
        deadline,
        *(f.get_db_prep_save(values[f.attname], connection) for f in fields),
    ]
    rows = fetch(_statement(columns), params)
    return rows[0][0] if rows else None
