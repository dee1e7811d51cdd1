"""Rows in bulk for the scale data: COPY on PostgreSQL, executemany on SQLite.

An institution's worth of data is millions of rows; the ORM's bulk_create builds a model
instance per row and, on PostgreSQL, one INSERT per batch: about ten times slower than
COPY, which psycopg streams row by row without holding them all. The generator chooses
every primary key itself (the table's largest id plus one, counted on), so rows that
point at each other (a response at its question, an event at its response) are written
without reading ids back; the tables' sequences are moved past them at the end
(`sequences_reset`). Values are given per attname in the order of `fields`, every other
column takes the model's default; JSON fields take Python objects.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from django.core.management.color import no_style
from django.db import connection, models

BATCH = 2000  # rows per executemany on SQLite


class Table:
    """A model's table and the columns the generator writes, in order."""

    def __init__(self, model: type[models.Model], fields: Sequence[str]):
        self.model = model
        meta = model._meta
        by_attname = {f.attname: f for f in meta.concrete_fields}
        # Columns not given take the model's default (Django keeps defaults in Python,
        # not in the schema, so a COPY that left them out would write NULL).
        self._rest = [
            f for f in meta.concrete_fields if f.attname not in fields and not f.primary_key
        ]
        self._defaults = tuple(f.get_default() for f in self._rest)
        self.fields = [by_attname[name] for name in fields] + self._rest
        self.name = meta.db_table
        quote = connection.ops.quote_name
        self.columns = ", ".join(quote(f.column) for f in self.fields)
        self._json = [isinstance(f, models.JSONField) for f in self.fields]
        self._time = [isinstance(f, models.DateTimeField) for f in self.fields]

    def next_id(self) -> int:
        """The first id free after every row the table holds."""
        pk = connection.ops.quote_name(self.model._meta.pk.column)
        table = connection.ops.quote_name(self.name)
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT COALESCE(MAX({pk}), 0) FROM {table}")  # noqa: S608
            return int(cursor.fetchone()[0]) + 1

    def _values(self, row: Sequence, sqlite: bool) -> tuple:
        out = [*row, *self._defaults]
        for i, value in enumerate(out):
            if value is None:
                continue
            if self._json[i]:
                out[i] = json.dumps(value)
            elif sqlite and self._time[i]:
                out[i] = connection.ops.adapt_datetimefield_value(value)
        return tuple(out)

    def write(self, rows: Iterable[Sequence]) -> int:
        """Insert the rows; returns how many."""
        count = 0
        table = connection.ops.quote_name(self.name)
        if connection.vendor == "postgresql":
            connection.ensure_connection()
            sql = f"COPY {table} ({self.columns}) FROM STDIN"  # noqa: S608
            with connection.connection.cursor() as cursor, cursor.copy(sql) as copy:
                for row in rows:
                    copy.write_row(self._values(row, sqlite=False))
                    count += 1
            return count
        marks = ", ".join(["%s"] * len(self.fields))
        sql = f"INSERT INTO {table} ({self.columns}) VALUES ({marks})"  # noqa: S608
        batch: list[tuple] = []
        with connection.cursor() as cursor:
            for row in rows:
                batch.append(self._values(row, sqlite=True))
                if len(batch) >= BATCH:
                    cursor.executemany(sql, batch)
                    count += len(batch)
                    batch = []
            if batch:
                cursor.executemany(sql, batch)
                count += len(batch)
        return count


def sequences_reset(model_classes: Sequence[type[models.Model]]) -> None:
    """Move each table's id sequence past the rows written with chosen ids (PostgreSQL;
    SQLite takes the next id from the table itself)."""
    statements = connection.ops.sequence_reset_sql(no_style(), list(model_classes))
    with connection.cursor() as cursor:
        for sql in statements:
            cursor.execute(sql)
