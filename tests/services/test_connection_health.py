"""A kept PostgreSQL connection is checked before a request reuses it, without a query
unless the socket says something happened (config/postgresql/base.py).

Each case reads what the kept connection's backend last ran from pg_stat_activity,
through a second connection in autocommit (a transaction would cache the view).
"""

from __future__ import annotations

import time

import pytest
from django.db import DEFAULT_DB_ALIAS, connections

from config.postgresql.base import socket_has_news


@pytest.fixture
def pair(services_ready):
    """(kept, observer): two fresh connections to the test database, in autocommit."""
    made = [connections.create_connection(DEFAULT_DB_ALIAS) for _ in range(2)]
    for wrapper in made:
        wrapper.ensure_connection()
    yield made
    for wrapper in made:
        wrapper.close()


def _run(wrapper, sql: str, params=()):
    with wrapper.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall() if cursor.description else None


def _last_statement(observer, kept) -> str:
    pid = kept.connection.info.backend_pid
    [(query,)] = _run(observer, "SELECT query FROM pg_stat_activity WHERE pid = %s", [pid])
    return query


def _wait_for_news(kept) -> None:
    deadline = time.monotonic() + 10
    while not socket_has_news(kept.connection.fileno()):
        assert time.monotonic() < deadline, "nothing arrived on the kept connection"
        time.sleep(0.01)


def test_the_project_uses_the_backend(services_ready):
    assert type(connections[DEFAULT_DB_ALIAS]).__module__ == "config.postgresql.base"


def test_an_idle_kept_connection_is_usable_without_a_round_trip(pair):
    kept, observer = pair
    _run(kept, "SELECT 'health probe'")
    assert kept.is_usable()
    assert _last_statement(observer, kept) == "SELECT 'health probe'"


def test_a_connection_the_server_ended_is_unusable_and_replaced(pair):
    kept, observer = pair
    old_pid = kept.connection.info.backend_pid
    _run(observer, "SELECT pg_terminate_backend(%s)", [old_pid])
    _wait_for_news(kept)
    assert not kept.is_usable()
    # What a request does: its first query checks the kept connection, finds it gone,
    # and connects again instead of failing.
    kept.health_check_done = False
    assert kept.health_check_enabled
    assert _run(kept, "SELECT 1") == [(1,)]
    assert kept.connection.info.backend_pid != old_pid


def test_something_sent_unasked_gets_the_round_trip_check(pair):
    kept, observer = pair
    _run(kept, "LISTEN burnin_health_probe")
    _run(observer, "NOTIFY burnin_health_probe")
    _wait_for_news(kept)
    assert kept.is_usable()
    assert _last_statement(observer, kept) == "SELECT 1"


def test_a_connection_inside_a_transaction_gets_the_round_trip_check(pair):
    kept, observer = pair
    kept.set_autocommit(False)
    _run(kept, "SELECT 'in a transaction'")
    assert kept.is_usable()
    assert _last_statement(observer, kept) == "SELECT 1"
    kept.rollback()
