"""A statement of many parameters is converted by psycopg once per process and then
taken from its cache (config/postgresql/query_cache.py), as a certification start's
questions INSERT of 125 parameters is."""

from __future__ import annotations

from django.db import connection
from psycopg import _queries

from config.postgresql.query_cache import PARAMETERS_CACHED


def _many(n: int) -> tuple[str, list[int]]:
    values = ", ".join(["(%s)"] * n)
    return f"SELECT sum(v) FROM (VALUES {values}) AS t(v)", list(range(n))  # noqa: S608


def test_the_backend_raises_the_limit_psycopg_reads():
    import config.postgresql.base  # noqa: F401 - sets it as it loads, on either pass

    # a psycopg that renamed or dropped the constant fails here, not silently
    assert _queries.MAX_CACHED_STATEMENT_PARAMS >= PARAMETERS_CACHED


def test_a_statement_of_125_parameters_is_converted_once(services_ready):
    sql, params = _many(125)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)  # converted and kept, if it was not kept already
        before = _queries._query2pg.cache_info()
        cursor.execute(sql, params)
        assert cursor.fetchone()[0] == sum(params)
    after = _queries._query2pg.cache_info()
    assert (after.hits - before.hits, after.misses - before.misses) == (1, 0)
