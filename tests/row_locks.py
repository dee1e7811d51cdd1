"""A second connection holding a row lock, for tests of statements that must skip a row
another transaction holds (PostgreSQL's SKIP LOCKED) rather than wait for it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from django.db import connection


def _holder() -> psycopg.Connection:
    """Another connection to the test database: a writer holding rows the statement meets."""
    settings = connection.settings_dict
    return psycopg.connect(
        host=settings["HOST"],
        port=settings["PORT"] or 5432,
        user=settings["USER"],
        dbname=settings["NAME"],
    )


@contextmanager
def row_held(model, pk: int) -> Iterator[None]:
    """The model's row `pk` locked FOR UPDATE by another connection for the block (the
    row committed, so that connection sees it), released after."""
    other = _holder()
    try:
        table = connection.ops.quote_name(model._meta.db_table)
        held = other.execute(
            f"SELECT id FROM {table} WHERE id = %s FOR UPDATE",  # noqa: S608
            [pk],
        ).fetchall()
        assert held == [(pk,)]  # the holder sees the row and holds it
        yield
    finally:
        other.rollback()
        other.close()
