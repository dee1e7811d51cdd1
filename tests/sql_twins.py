"""Holding a hand-written statement to its ORM twin: the helpers.

A statement and the queryset (or ORM write) that says the same thing run on the same
data, and what they give (instances read, rows written) must agree field by field: the
value and its Python type (bool, not 0/1; float; a dict from JSON; an aware datetime),
NULLs included. A write runs in a savepoint that is rolled back after its rows are
read, so the statement and its twin each start from the same data. On PostgreSQL a
locking statement must lock the same rows its twin locks: a row lock sets the row's
xmax (to the locking (sub)transaction) and a write gives the row a new xmin, so the
rows whose xmin or xmax moved across a call are the rows it locked or wrote. The table
of statements is tests/api_common/test_sql_equivalence.py.
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
    """{attname: (type, value)} of every concrete field of a model instance, every one of
    them loaded (a deferred field would be read again, hiding a column a statement
    left out)."""
    assert not obj.get_deferred_fields(), obj.get_deferred_fields()
    return {
        f.attname: _value(getattr(obj, f.attname))
        for f in obj._meta.concrete_fields
        if f.attname not in skip
    }


def loaded_fields(obj) -> tuple[list[str], dict[str, tuple]]:
    """(the deferred fields' attnames, sorted; {attname: (type, value)} of the rest): an
    instance a statement loads with some columns left out on purpose, compared with its
    queryset's `.only()` twin (reading a deferred field would load it)."""
    deferred = obj.get_deferred_fields()
    return sorted(deferred), {
        f.attname: _value(getattr(obj, f.attname))
        for f in obj._meta.concrete_fields
        if f.attname not in deferred
    }


def assert_same(got, want, skip: Iterable[str] = ()) -> None:
    """Two instances of one model hold the same values of the same types."""
    assert type(got) is type(want)
    assert fields(got, skip) == fields(want, skip)


def assert_same_lists(got: list, want: list, skip: Iterable[str] = ()) -> None:
    assert [fields(o, skip) for o in got] == [fields(o, skip) for o in want]


def _versions(model, pks) -> dict:
    if not pks:
        return {}
    table = connection.ops.quote_name(model._meta.db_table)
    marks = ", ".join(["%s"] * len(pks))
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id, xmin::text || ':' || xmax::text FROM {table} WHERE id IN ({marks})",  # noqa: S608
            list(pks),
        )
        return dict(cursor.fetchall())


def run(
    call: Callable[[], Any],
    read: Callable[[], Any] = lambda: None,
    *,
    model=None,
    pks: Iterable[int] = (),
) -> tuple[Any, Any, set[int] | None]:
    """(call's result, read's result right after it, the rows of `model` among `pks` it
    locked or wrote), inside a savepoint rolled back after: the next call starts from
    the same data. The rows are None on a database without row locks (SQLite)."""
    pks = list(pks)
    watch = model is not None and connection.vendor == "postgresql"
    with transaction.atomic():
        before = _versions(model, pks) if watch else {}
        result = call()
        after = _versions(model, pks) if watch else {}
        seen = read()
        transaction.set_rollback(True)
    touched = {pk for pk in pks if after.get(pk) != before.get(pk)} if watch else None
    return result, seen, touched


def locks(model, pks: Iterable[int], call: Callable[[], Any]) -> tuple[Any, set[int] | None]:
    """(call's result, the rows of `model` among `pks` it locked or wrote): run's."""
    result, _, touched = run(call, model=model, pks=pks)
    return result, touched
