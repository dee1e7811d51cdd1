"""The boot-time warm-up (config.warmup) exercises every template and the URLconf
without touching the database (this test has no database access: a query would fail
it), so a forked worker inherits no connection."""

from __future__ import annotations

from config.warmup import warm
from problems.engine import registry


def test_warm_touches_every_template_and_no_database():
    assert warm() == len(registry.all_templates())
