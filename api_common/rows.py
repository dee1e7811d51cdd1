"""Model instances from hand-written SQL, converted exactly as the ORM converts them.

The answer path runs a few statements on every request, and building them through the
ORM (cloning querysets, resolving lookups and joins, compiling) cost several times what
the database did: the gated read of a question with its attempt and quiz took about
7 ms to build and 0.3 ms to run. Where a statement is that hot, it is written once as
SQL, and `Columns` turns its rows back into model instances: the model's concrete
columns under a table alias for the SELECT list, and a loader that applies the same
converters the ORM's compiler would (SQLite's datetimes, JSON fields, booleans), so an
instance from here is indistinguishable from one the ORM read (`Model.from_db`, no
`save()` surprises). The SQL stays portable: what PostgreSQL and SQLite both accept,
with the row locks PostgreSQL needs added by `for_update_of`.
"""

from __future__ import annotations

import functools
import inspect
import string
from collections.abc import Sequence
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection, models
from django.db.models.base import ModelState
from django.db.models.fields.related_descriptors import ForeignKeyDeferredAttribute
from django.db.models.query_utils import DeferredAttribute
from django.db.models.signals import post_init, pre_init

# Descriptors that store a fresh instance's value in its __dict__ and nothing else
# (a foreign key's clears a cached related object, which a fresh instance has none of).
PLAIN_DESCRIPTORS = (DeferredAttribute, ForeignKeyDeferredAttribute)


class Columns:
    """A model's concrete columns as selected under `alias`, and their loader."""

    def __init__(self, model, alias: str, only: Sequence[str] | None = None):
        self.model = model
        self.alias = alias
        fields = model._meta.concrete_fields
        if only is not None:
            fields = [f for f in fields if f.attname in only or f.primary_key]
        self.fields = list(fields)
        self.attnames = [f.attname for f in self.fields]
        quote = connection.ops.quote_name
        self.sql = ", ".join(f"{quote(alias)}.{quote(f.column)}" for f in self.fields)
        self._converters: list[tuple[int, list, Any]] | None = None
        self._plain: bool | None = None

    def __len__(self) -> int:
        return len(self.fields)

    def _converters_for(self) -> list[tuple[int, list, Any]]:
        """[(index, converters, expression)] for the columns that need converting, in the
        order the ORM's compiler applies them (backend first, then the field's own)."""
        if self._converters is None:
            found = []
            for i, field in enumerate(self.fields):
                col = field.get_col(self.alias)
                converters = connection.ops.get_db_converters(col) + col.get_db_converters(
                    connection
                )
                if converters:
                    found.append((i, converters, col))
            self._converters = found
        return self._converters

    def _plain_instances(self) -> bool:
        """May `load` fill a new instance's __dict__ itself? Model.from_db calls the
        model's __init__, which sends pre_init and post_init and sets each value through
        its field's descriptor: 7.6 us a row for an answer's try (16 columns), 2.5 us
        filled directly. The result is the same object where the model keeps Django's
        own __init__ and from_db, every field's descriptor only stores the value (both
        decided at the first load, once the apps are ready) and nothing listens to those
        signals (asked at every load: a receiver may connect at any time; with none
        connected anywhere that is two list checks); otherwise `load` keeps from_db."""
        if self._plain is None:
            model = self.model
            self._plain = (
                model.__init__ is models.Model.__init__
                and model.from_db.__func__ is models.Model.from_db.__func__
                and all(
                    type(inspect.getattr_static(model, f.attname, None)) in PLAIN_DESCRIPTORS
                    for f in self.fields
                )
            )
        return self._plain and not _listened(self.model)

    def load(self, row: Sequence, start: int = 0):
        """The instance held by row[start:start + len(self)], as Model.from_db makes it
        (fields not selected are deferred: absent from its __dict__)."""
        values = list(row[start : start + len(self.fields)])
        for i, converters, col in self._converters_for():
            value = values[i]
            for convert in converters:
                value = convert(value, col, connection)
            values[i] = value
        # `connection` is the default database's (a proxy whose alias lookup costs a
        # microsecond: the constant is the same)
        if not self._plain_instances():
            return self.model.from_db(DEFAULT_DB_ALIAS, self.attnames, values)
        obj = self.model.__new__(self.model)
        state = obj._state = ModelState()
        state.adding = False
        state.db = DEFAULT_DB_ALIAS
        obj.__dict__.update(zip(self.attnames, values, strict=True))
        return obj


def _listened(model) -> bool:
    """Does any receiver listen to the model's pre_init or post_init?"""
    if not (pre_init.receivers or post_init.receivers):
        return False
    return pre_init.has_listeners(model) or post_init.has_listeners(model)


def for_update_of(*aliases: str) -> str:
    """The row-lock clause for the tables under these aliases: PostgreSQL locks them
    until the transaction ends; SQLite has no row locks (its writers take the database
    in turn: Django's transaction_mode IMMEDIATE in settings), so nothing is added."""
    if not connection.features.has_select_for_update:
        return ""
    quote = connection.ops.quote_name
    if connection.features.has_select_for_update_of:
        return " FOR UPDATE OF " + ", ".join(quote(a) for a in aliases)
    return " FOR UPDATE"


def quoted(name: str) -> str:
    """A column's (or any identifier's) name, quoted for the database."""
    return connection.ops.quote_name(name)


def table_of(model) -> str:
    """A model's table, quoted for the database: the FROM of a hand-written statement."""
    return connection.ops.quote_name(model._meta.db_table)


def fetch(sql: str, params: Sequence) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


@functools.lru_cache(maxsize=64)
def _placeholders(sql: str) -> tuple[tuple[tuple[int, str | None], ...], frozenset, int]:
    """The statement's placeholders, read once a statement: in the order they stand,
    (how many `%s` come next, then the `{name}` list after them or None); the names of
    its lists; and how many `%s` it has in all."""
    pieces = tuple(
        (literal.count("%s"), name) for literal, name, _, _ in string.Formatter().parse(sql)
    )
    names = frozenset(name for _, name in pieces if name is not None)
    return pieces, names, sum(count for count, _ in pieces)


def fetch_in(sql: str, params: Sequence, **lists: Sequence) -> list[tuple]:
    """The rows of a statement with IN lists: each `{name}` filled with one placeholder
    a value (never empty: callers skip the read), and every value bound where its
    placeholder stands: the `%s` of `params` in turn, each list at its `{name}`, whatever
    order the keywords come in. Lists other than those the statement names, or a number
    of `params` other than its `%s` placeholders, are a TypeError here rather than values
    bound to the wrong placeholders. (A queryset's `__in` resolves each value on its own:
    8 us a value, 150 ms of the progress CSV's 5,743 learners read 500 at a time.)"""
    pieces, names, fixed_count = _placeholders(sql)
    if names != set(lists):
        raise TypeError(f"the statement's lists are {sorted(names)}, given {sorted(lists)}")
    if fixed_count != len(params):
        raise TypeError(f"the statement takes one parameter a %s, given {len(params)}")
    values: list = []
    fixed = iter(params)
    for count, name in pieces:
        values += [next(fixed) for _ in range(count)]
        if name is not None:
            values += lists[name]
    marks = {name: ", ".join(["%s"] * len(v)) for name, v in lists.items()}
    return fetch(sql.format(**marks), values)


ANY_CONFLICT = ("*",)  # `conflict=` for: whichever unique constraint the row would break


def ctes_take_writes() -> bool:
    """Does the database take INSERT, UPDATE and DELETE inside a WITH (data-modifying
    CTEs)? PostgreSQL does, and there writes that need nothing from the database in
    between are sent as one statement; SQLite does not, and runs them one by one."""
    return connection.vendor == "postgresql"


def insert_statement(
    model, values: dict[str, Any], *, conflict: Sequence[str] = ()
) -> tuple[str, list]:
    """(sql, params) of `insert`'s statement, for a caller that puts it in a CTE."""
    meta = model._meta
    quote = connection.ops.quote_name
    fields = [meta.get_field(name) for name in values]  # attnames: "attempt_id", not "attempt"
    columns = ", ".join(quote(f.column) for f in fields)
    marks = ", ".join(["%s"] * len(fields))
    params = [f.get_db_prep_save(values[f.attname], connection) for f in fields]
    on_conflict = ""
    if conflict == ANY_CONFLICT:
        on_conflict = " ON CONFLICT DO NOTHING"
    elif conflict:
        target = ", ".join(quote(meta.get_field(c).column) for c in conflict)
        on_conflict = f" ON CONFLICT ({target}) DO NOTHING"
    pk = quote(meta.pk.column)
    sql = (
        f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES ({marks})"  # noqa: S608
        f"{on_conflict} RETURNING {pk}"
    )
    return sql, params


def insert(model, values: dict[str, Any], *, conflict: Sequence[str] = ()) -> int | None:
    """INSERT one row of `model` (values by field attname, each prepared by its field as
    save() prepares it) and return its new primary key. With `conflict` (the fields of
    a unique constraint, or ANY_CONFLICT) a row that would break it is not inserted and
    None comes back: ON CONFLICT DO NOTHING decides, in the statement itself, what a
    look-up beforehand would have decided under a lock (and no savepoint is needed to
    survive the IntegrityError)."""
    rows = fetch(*insert_statement(model, values, conflict=conflict))
    return rows[0][0] if rows else None


def inserted(model, pk: int, values: dict[str, Any]):
    """The instance of a row just stored by hand-written SQL (values by attname, as
    `insert` takes them), as the ORM holds one after save(): no second read."""
    obj = model(**{model._meta.pk.attname: pk}, **values)
    obj._state.adding = False
    obj._state.db = DEFAULT_DB_ALIAS
    return obj


def _insert_sql(meta, fields, n: int) -> str:
    """INSERT of n rows of these fields' columns into the model's table."""
    quote = connection.ops.quote_name
    columns = ", ".join(quote(f.column) for f in fields)
    marks = ", ".join(["(" + ", ".join(["%s"] * len(fields)) + ")"] * n)
    return f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES {marks}"  # noqa: S608


def insert_rows_statement(model, rows: Sequence[dict[str, Any]]) -> tuple[str, list]:
    """(sql, params) of one multi-row INSERT of `model` (every row with the same
    attnames, prepared by their fields as save() prepares them)."""
    meta = model._meta
    fields = [meta.get_field(name) for name in rows[0]]
    params = [f.get_db_prep_save(row[f.attname], connection) for row in rows for f in fields]
    return _insert_sql(meta, fields, len(rows)), params


def execute_together(statements: Sequence[tuple[str, Sequence]]) -> None:
    """Run writes that need nothing from each other and return nothing, in order. On
    PostgreSQL they are one statement, one round trip (each but the last a
    data-modifying CTE, which runs to completion whether or not anything reads it);
    SQLite takes no INSERT, UPDATE or DELETE in a CTE, so there one after another.
    Within one statement the writes share a snapshot: none sees another's rows."""
    if not statements:
        return
    with connection.cursor() as cursor:
        if not ctes_take_writes():
            for sql, params in statements:
                cursor.execute(sql, params)
            return
        *first, (last_sql, last_params) = statements
        ctes = ", ".join(f"w{i} AS ({sql})" for i, (sql, _) in enumerate(first))
        params = [p for _, ps in first for p in ps] + list(last_params)
        cursor.execute(f"WITH {ctes} {last_sql}" if first else last_sql, params)


def insert_objects(objs: Sequence[Any], *, key: str) -> None:
    """One multi-row INSERT of unsaved model instances (all of one model), as
    bulk_create would (every concrete field but the primary key, each through its
    field's pre_save and get_db_prep_save), setting each instance's primary key.

    The new keys come back with the `key` column, whose values must tell the instances
    apart, and are matched to them by it: no reliance on the order of RETURNING's
    rows. Through the ORM this cost more to build than a start's other statements."""
    if not objs:
        return
    meta = type(objs[0])._meta
    quote = connection.ops.quote_name
    fields = [f for f in meta.concrete_fields if not f.primary_key]
    key_field = meta.get_field(key)
    params = [f.get_db_prep_save(f.pre_save(obj, True), connection) for obj in objs for f in fields]
    sql = (
        f"{_insert_sql(meta, fields, len(objs))} "
        f"RETURNING {quote(meta.pk.column)}, {quote(key_field.column)}"
    )
    by_key = {getattr(obj, key_field.attname): obj for obj in objs}
    if len(by_key) != len(objs):
        raise ValueError(f"insert_objects: {key!r} does not tell the rows apart")
    for pk, value in fetch(sql, params):
        obj = by_key[value]
        obj.pk = pk
        obj._state.adding = False
        obj._state.db = DEFAULT_DB_ALIAS
