"""Timestamps come back from PostgreSQL exactly as Django's own loader returns them, but
parsed by psycopg's compiled loader (config/postgresql/timestamps.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from django.db import connection
from django.db.backends.postgresql.psycopg_any import BaseTzLoader
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from psycopg import adapters
from psycopg.pq import Format

from config.postgresql.timestamps import PARSER, TIMESTAMPTZ_OID, CompiledTzLoader, loader_for

moments = st.datetimes(
    min_value=datetime(1, 1, 2),
    max_value=datetime(9999, 12, 30),
    timezones=st.sampled_from(
        [UTC, timezone(timedelta(hours=5, minutes=30)), timezone(-timedelta(hours=8))]
    ),
)


def _django_loader(tz):
    """Django's own loader for `tz`, as psycopg_any.register_tzloader builds it."""
    return type("SpecificTzLoader", (BaseTzLoader,), {"timezone": tz})


def _text(value: datetime) -> bytes:
    """The value as the connection sends it: PostgreSQL's own text of the timestamptz."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::timestamptz::text", [value])
        return cursor.fetchone()[0].encode()


@pytest.fixture
def pg(services_ready):
    connection.ensure_connection()
    return connection.connection


def test_the_connection_loads_timestamps_with_the_compiled_parser(pg):
    loader = pg.adapters.get_loader(TIMESTAMPTZ_OID, Format.TEXT)
    assert issubclass(loader, CompiledTzLoader) and loader.timezone == connection.timezone
    assert PARSER is adapters.get_loader(TIMESTAMPTZ_OID, Format.TEXT)
    instance = loader(TIMESTAMPTZ_OID, pg)
    # Django's connection speaks UTC: psycopg calls the parser with no Python in between.
    assert instance.load == instance._parse
    with connection.cursor() as cursor:  # and Django's cursors keep it (same `timezone`)
        cursor.execute("SELECT %s::timestamptz", [datetime(2026, 12, 6, 18, 5, 7, 123, UTC)])
        assert cursor.cursor.adapters.get_loader(TIMESTAMPTZ_OID, Format.TEXT) is loader
        (value,) = cursor.fetchone()
    assert value == datetime(2026, 12, 6, 18, 5, 7, 123, UTC) and value.tzinfo is UTC


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)  # the fixture is the connection, the same for every value
@given(value=moments)
def test_every_value_loads_as_djangos_own_loader_loads_it(pg, value):
    data = _text(value)
    for tz in (connection.timezone, timezone(timedelta(hours=2)), None):
        ours = loader_for(tz)(TIMESTAMPTZ_OID, pg).load(data)
        theirs = _django_loader(tz)(TIMESTAMPTZ_OID, pg).load(data)
        assert (ours, ours.tzinfo, ours.utcoffset()) == (theirs, theirs.tzinfo, theirs.utcoffset())


def test_a_connection_in_another_zone_loads_as_django_does(pg):
    """If the connection's zone is not Django's, the values are re-labelled exactly as
    Django's loader re-labels them (its replace(tzinfo=...)), not parsed differently."""
    value = datetime(2026, 3, 29, 1, 30, tzinfo=UTC)
    with connection.cursor() as cursor:
        cursor.execute("SET TIME ZONE 'Europe/Berlin'")
        try:
            data = _text(value)
            ours = loader_for(connection.timezone)(TIMESTAMPTZ_OID, pg)
            theirs = _django_loader(connection.timezone)(TIMESTAMPTZ_OID, pg)
            assert ours.load != ours._parse  # the zones differ: the Python path
            assert ours.load(data) == theirs.load(data)
            assert ours.load(data).tzinfo is theirs.load(data).tzinfo
        finally:
            cursor.execute("SET TIME ZONE 'UTC'")
