"""What the benches' database tests share."""

from __future__ import annotations

import os
import uuid

import pytest
from django.db import connection

from bench._server import admin_sql, db_url


@pytest.fixture
def scratch_database(db):
    """A database of its own on the suite's PostgreSQL server, dropped afterwards: the
    benches' upkeep (bench._server.settle, bench._autovacuum) works on whole databases,
    so never on the suite's. Skips on SQLite, but fails with REQUIRE_SERVICES=1."""
    if connection.vendor != "postgresql":
        if os.environ.get("REQUIRE_SERVICES") == "1":
            pytest.fail(f"database is {connection.vendor}, not PostgreSQL")
        pytest.skip("needs PostgreSQL")
    s = connection.settings_dict
    base = f"postgres://{s['USER']}@{s['HOST']}:{s['PORT'] or 5432}/{s['NAME']}"
    name = f"burnin_upkeep_{uuid.uuid4().hex[:8]}"
    admin_sql(base, f'CREATE DATABASE "{name}"')
    try:
        yield db_url(base, name)
    finally:
        admin_sql(base, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
