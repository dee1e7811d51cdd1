"""The registry of templates by stable slug.

Template modules register themselves on import. The first lookup walks problems.templates
recursively (the family packages and every module in them) and imports each module, so
callers never need to know where a template lives, and adding a module is all it takes to
add a template. Each name is imported here as soon as the walk yields it, before pkgutil
looks inside it: pkgutil alone would skip a package that fails to import, silently
dropping its templates, where this raises.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from problems.engine.template import Template

_REGISTRY: dict[str, Template] = {}


class UnknownTemplate(KeyError):
    def __str__(self) -> str:
        return f"unknown template slug {self.args[0]!r}"


def register(cls: type[Template]) -> type[Template]:
    """Class decorator: one instance per slug; a duplicate slug is a programming error."""
    slug = cls.slug
    if slug in _REGISTRY and type(_REGISTRY[slug]) is not cls:
        raise ValueError(f"template slug {slug!r} registered twice")
    _REGISTRY[slug] = cls()
    return cls


@cache
def _load_all() -> None:
    import problems.templates as pkg

    for info in pkgutil.walk_packages(pkg.__path__, prefix=f"{pkg.__name__}."):
        importlib.import_module(info.name)


def get(slug: str) -> Template:
    _load_all()
    try:
        return _REGISTRY[slug]
    except KeyError:
        raise UnknownTemplate(slug) from None


def all_templates() -> list[Template]:
    """Every registered template, ordered by slug."""
    _load_all()
    return [_REGISTRY[s] for s in sorted(_REGISTRY)]


def slugs() -> list[str]:
    return [t.slug for t in all_templates()]
