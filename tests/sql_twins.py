"""Holding a hand-written statement to its ORM twin: the helpers.

A statement and the queryset (or ORM write) that says the same thing run on the same
data, and what they give (instances read, rows written) must agree field by field: the
value and its Python type (bool, not 0/1; float; a dict from JSON; an aware datetime),
NULLs included. A write runs in a savepoint that is rolled back after its rows are
read, so the statement and its twin each start from the same data. On PostgreSQL a
locking statement must lock the same rows its twin locks: a row lock sets the row's
xmax (to the locking (sub)transaction), so the rows whose xmax moved across a call are
the rows it locked. The table of statements is tests/api_common/test_sql_equivalence.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from django.db import connection, transaction


def _value(v: Any) -> tuple:
    if isinstance(v, datetime):
        return ("datetime", v, v.tzinfo is not None and v.utcoffset() is not None)
    return (type(v).__name__, v)


def fields(obj, skip: Iterable[str] = ()) -> dict[str, tuple]:
    """{attname: (type, value)} of every concrete field of a model instance."""
    return {
        f.attname: _value(getattr(obj, f.attname))
        for f in obj._meta.concrete_fields
        if f.attname not in skip
    }


def assert_same(got, want, skip: Iterable[str] = ()) -> None:
    """Two instances of one model hold the same values of the same types."""
    assert type(got) is type(want)
    assert fields(got, skip) == fields(want, skip)


def assert_same_lists(got: list, want: list, skip: Iterable[str] = ()) -> None:
    assert [fields(o, skip) for o in got] == [fields(o, skip) for o in want]


def rolled_back(write: Callable[[], Any], read: Callable[[], Any]) -> tuple[Any, Any]:
    """(write's result, read's result right after it), then both undone."""
    with transaction.atomic():
        result = write()
        seen = read()
        transaction.set_rollback(True)
    return result, seen


def _xmax(model, pks) -> dict:
    if not pks:
        return {}
    table = connection.ops.quote_name(model._meta.db_table)
    marks = ", ".join(["%s"] * len(pks))
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id, xmax::text FROM {table} WHERE id IN ({marks})", list(pks))  # noqa: S608
        return dict(cursor.fetchall())


def locks(model, pks: Iterable[int], call: Callable[[], Any]) -> tuple[Any, set[int] | None]:
    """(call's result, the rows of `pks` it locked) inside a savepoint rolled back after;
    None for the rows on a database without row locks (SQLite)."""
    pks = list(pks)
    with transaction.atomic():
        if connection.vendor != "postgresql":
            result, locked = call(), None
        else:
            before = _xmax(model, pks)
            result = call()
            after = _xmax(model, pks)
            locked = {pk for pk in pks if after.get(pk) != before.get(pk)}
        transaction.set_rollback(True)
    return result, locked
