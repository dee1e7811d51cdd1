"""The boot-time warm-up (config.warmup) exercises every template and the URLconf
without touching the database (this test has no database access: a query would fail
it), so a forked worker inherits no connection."""

from __future__ import annotations

from config.warmup import warm
from problems.engine import registry


def test_warm_touches_every_template_and_no_database():
    assert warm() == len(registry.all_templates())


def test_warm_compiles_the_pages_templates():
    """After the warm-up the cached loader holds the pages' templates: the quiz page's
    first render compiles nothing (a class opening an exam at once queued behind it)."""
    from django.template import engines

    warm()
    loader = engines["django"].engine.template_loaders[0]
    cached = getattr(loader, "get_template_cache", {})
    assert "frontend/take/quiz.html" in cached or any(
        key.startswith("frontend/take/") for key in cached
    )
    assert "frontend/base.html" in cached
