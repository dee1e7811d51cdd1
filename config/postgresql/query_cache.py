"""Statements of many parameters converted once per process, not at every execute.

psycopg turns a query's `%s` placeholders into PostgreSQL's `$n` with a regular
expression in Python and keeps the result in an LRU cache keyed on the query's text, but
only for queries of at most 4,096 bytes and 50 parameters: ORM-made bulk INSERTs vary
their number of rows, and would fill the cache with texts seen once (psycopg discussion
#628). A start that builds its questions in Python inserts them in one statement, 5
rows of 25 columns for a 5-question exam, the same text at every such start: converted
afresh at each (120 us for 100 placeholders on an idle core; 0.2 us from the cache).
With the cache the pooled exam start's CPU went 2.90 -> 2.80, 2.09 -> 1.97 and 2.30 ->
2.21 ms (three runs of `bench/endpoint_costs.py`'s exam start, 200 calls each way, taken
in turn with psycopg's own limit, 2026-12-07). Since then a pooled start stores its
questions from the pool within the database (assess.services.drawn_variants.
drawn_questions_store); the INSERT of 125 values remains for every certification start
(per-attempt assembly) and every start that draws live (an empty or stale pool).
The parameter limit goes; the length limit stays and bounds what is kept (about 1,000
placeholders fit in 4,096 bytes), so a huge IN list is still converted each time. The
limit is a module constant of psycopg's, read at each execute:
tests/services/test_query_cache.py fails if an upgrade renames it.
"""

from __future__ import annotations

from psycopg import _queries

PARAMETERS_CACHED = 4096  # no fewer than the placeholders 4,096 bytes can hold


def cache_statements_of_many_parameters() -> None:
    _queries.MAX_CACHED_STATEMENT_PARAMS = max(
        _queries.MAX_CACHED_STATEMENT_PARAMS, PARAMETERS_CACHED
    )
