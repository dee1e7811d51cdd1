"""Pay a worker's first-request costs when it boots, not when a learner is waiting.

A fresh gunicorn worker took 0.3-0.5 s over its first requests: the URLconf imports
every view module, the problem registry imports every template (its formulas' LaTeX
is read from problems/engine/formula_tex.json, not typeset by sympy), the hardware
catalog is parsed, pint and latex2mathml fill their caches. When an exam opens, a
whole class starts at once and those first requests queue behind one another. The
pages' templates are compiled here too, for Django's cached loader to keep: a class of
40 opening the quiz page at once on `make run`'s server waited 0.53 s each at the median
while the first request compiled them (bench/classroom.py).
config.wsgi calls `warm()` as the application loads, before the worker accepts a
connection (and in the master only, with gunicorn's --preload; runserver loads it as it
starts), so the first learner meets a warm worker. Nothing here touches the database:
no connection is opened that a fork could inherit.
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
    _compile_page_templates()
    return len(templates)


def _compile_page_templates() -> None:
    """Load every template of the project's own apps through the template engine, so its
    cached loader holds them compiled before the first page is asked for."""
    from pathlib import Path

    from django.conf import settings
    from django.template import engines
    from django.template.utils import get_app_template_dirs

    root = Path(settings.BASE_DIR).resolve()
    for directory in get_app_template_dirs("templates"):
        where = Path(directory).resolve()
        if root not in where.parents or "site-packages" in where.parts:
            continue  # Django's own and the libraries' templates: loaded if ever used
        for path in Path(directory).rglob("*.html"):
            name = path.relative_to(directory).as_posix()
            engines["django"].get_template(name)
