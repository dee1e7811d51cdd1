"""Timestamps read by psycopg's compiled parser, as Django's own loader returns them.

Why: Django's psycopg backend loads every `timestamptz` value through a loader that
subclasses psycopg's pure-Python `TimestamptzLoader` (it must set the value's tzinfo,
and the compiled loader of psycopg[binary] cannot be subclassed), so each value is
parsed by a regular expression in Python: 3.8 us a value here against 0.2 us with the
compiled loader (`SELECT now() FROM generate_series(1, 1000)`, both through a Django
cursor). An answer at the tries ceiling reads 29 earlier tries, each with its time;
pages and CSVs read thousands. (Django ticket #36960 and psycopg issue #1273 record the
same.) This loader keeps Django's loader, its `timezone` (which Django's cursors
compare, to register their own otherwise) and its result (the parsed value with
`replace(tzinfo=timezone)`), and has psycopg's compiled loader, looked up from the
public default adapters map, do the parsing. Without psycopg[binary] that lookup gives
the pure-Python class, and the result is the same.
"""

from __future__ import annotations

import functools
from datetime import datetime, tzinfo

from django.db.backends.postgresql.psycopg_any import BaseTzLoader
from psycopg import adapt, adapters
from psycopg.pq import Format

TIMESTAMPTZ_OID = adapters.types["timestamptz"].oid
PARSER = adapters.get_loader(TIMESTAMPTZ_OID, Format.TEXT)  # compiled with psycopg[binary]


class CompiledTzLoader(BaseTzLoader):
    """Django's timestamptz loader (BaseTzLoader) with psycopg's own parser."""

    def __init__(self, oid: int, context: adapt.AdaptContext | None = None):
        super().__init__(oid, context)  # psycopg's: self._timezone is the connection's zone
        self._parse = PARSER(oid, context).load
        if self.timezone is not None and self.timezone is self._timezone:
            # The parser's values already carry Django's zone, the very object (UTC on
            # both sides, as Django configures the connection): psycopg calls the
            # parser directly, with no Python in between (0.5-0.6 us a value).
            self.load = self._parse

    def load(self, data) -> datetime:
        return self._parse(data).replace(tzinfo=self.timezone)


@functools.cache
def loader_for(timezone: tzinfo | None) -> type[CompiledTzLoader]:
    """The loader class for one time zone (None: naive values), as Django makes one per
    zone (psycopg_any.register_tzloader)."""
    return type("CompiledTzLoader", (CompiledTzLoader,), {"timezone": timezone})


@functools.cache
def with_compiled_timestamps(template: adapt.AdaptersMap, timezone) -> adapt.AdaptersMap:
    """A copy of Django's adapters template (one per time zone, cached as Django caches
    its own) whose timestamptz loader is `loader_for(timezone)`."""
    context = adapt.AdaptersMap(template)
    context.register_loader("timestamptz", loader_for(timezone))
    return context
