"""Pay a worker's first-request costs when it boots, not when a learner is waiting.

A fresh gunicorn worker took 0.3-0.5 s over its first requests: the URLconf imports
every view module, the problem registry imports every template (and builds its
formulas), the hardware catalog is parsed, pint and latex2mathml fill their caches.
When an exam opens, a whole class starts at once and those first requests queue behind
one another. config.wsgi calls `warm()` as the application loads, before the worker
accepts a connection (and in the master only, with gunicorn's --preload), so the first
learner meets a warm worker. Nothing here touches the database: no connection is
opened that a fork could inherit.
"""

from __future__ import annotations


def warm() -> int:
    """Import and exercise what the first requests would; returns the templates warmed."""
    from django.urls import get_resolver

    from problems.engine import registry
    from problems.engine.examples import is_example
    from problems.engine.render import render_markdown
    from problems.engine.variants import Variant

    get_resolver().url_patterns  # noqa: B018 (imports every view module)
    templates = registry.all_templates()
    for template in templates:
        variant = Variant.from_seed(template.slug, 1)
        render_markdown(variant.statement_markdown())
        for part in variant.parts.values():
            variant.grade(part.name, f"{part.value} {part.unit}".strip())
        is_example(variant)  # the first builds what every example prints (about 1.4 s)
    return len(templates)
