"""Django's PostgreSQL backend, with a kept connection's health checked without a query
(and timestamps parsed by psycopg's compiled loader: timestamps.py; statements of many
parameters converted once: query_cache.py).

Why: with CONN_HEALTH_CHECKS (settings), Django checks a kept connection before a
request's first query by sending `SELECT 1` and waiting for the answer: one more round
trip on every request, the cheapest included. Measured with the HTTP bench
(`bench/http_bench.py`, two pairs of alternating runs with the check on and off): every
endpoint served more requests a second without it (7-28%, the submission 14-15%), and
PostgreSQL spent a fifth less CPU on the framework's floor. Turning the check off would
let a request meet a connection that died while it was kept (a restart, a failover,
`pg_terminate_backend`) and fail.

A connection that the server ended while it sat idle says so without being asked: the
server sends its reason (a FATAL error) and closes the socket, which makes the socket
readable. An idle connection has nothing else to read unless the server sent something
unasked (a notification, a parameter it reports changing, a notice). So: a kept
connection whose socket has nothing to read is usable, without a query; one with
something to read, or not idle, gets Django's own check (`SELECT 1`), which reads what
arrived and fails on a connection that is gone. A peer that vanished without a word (a
cut cable, no FIN) is not found by either before the query that meets it; the connect
and TCP timeouts bound that. The same check by a non-blocking look at the socket is how
other drivers avoid a ping per checkout (go-sql-driver/mysql's connCheck).
"""

from __future__ import annotations

import select

from django.db.backends.postgresql import base
from psycopg.pq import TransactionStatus

from config.postgresql.query_cache import cache_statements_of_many_parameters
from config.postgresql.timestamps import with_compiled_timestamps

cache_statements_of_many_parameters()

_READY = select.POLLIN | select.POLLPRI | select.POLLERR | select.POLLHUP


def socket_has_news(fileno: int) -> bool:
    """Whether the socket holds something to read (or an error, or its peer hung up),
    asked without waiting."""
    poller = select.poll()
    poller.register(fileno, _READY)
    return bool(poller.poll(0))


class DatabaseWrapper(base.DatabaseWrapper):
    def get_connection_params(self) -> dict:
        """Django's, with timestamps parsed by psycopg's compiled loader (timestamps.py
        says why)."""
        params = super().get_connection_params()
        if "context" in params:  # psycopg 3 (Django's psycopg2 path has no context)
            params["context"] = with_compiled_timestamps(params["context"], self.timezone)
        return params

    def is_usable(self) -> bool:
        connection = self.connection
        if connection is None or connection.closed or connection.broken:
            return False
        if connection.info.transaction_status != TransactionStatus.IDLE:
            return super().is_usable()
        try:
            news = socket_has_news(connection.fileno())
        except (OSError, ValueError, base.Database.Error):
            return False
        return super().is_usable() if news else True
