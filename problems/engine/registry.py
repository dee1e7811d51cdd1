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
from collections.abc import Callable
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


# Other question kinds, by module name: each registers a resolver (slug -> an object
# with the Template protocol, or None) when it is imported. Loaded by name like the
# templates, because they are built on the engine and its templates: an import from
# here would be a circle.
KIND_MODULES = ("problems.drills.question",)
_RESOLVERS: list[Callable[[str], Template | None]] = []
# Kinds stored in the database (authored templates: the authoring app registers itself
# from its AppConfig.ready()), asked only after the pure kinds, so that resolving a
# drill or an unknown slug's pure kinds never costs a query: slug -> its current version,
# and (slug, version) -> that version (a stored question names the version it drew).
_STORED: list[Callable[[str], Template | None]] = []
_VERSIONED: list[Callable[[str, int], Template | None]] = []


# Stored kinds that place templates in lessons of a course (an authored template lists
# its lessons): (lesson slug, course slug) -> slugs, asked by lesson practice.
_LESSON_SOURCES: list[Callable[[str, str], list[str]]] = []


def register_lesson_source(source: Callable[[str, str], list[str]]) -> None:
    if source not in _LESSON_SOURCES:
        _LESSON_SOURCES.append(source)


def lesson_extras(lesson_slug: str, course_slug: str) -> list[str]:
    """Slugs of stored templates that place themselves in the lesson (of that course),
    beside those the curriculum links."""
    return [slug for source in _LESSON_SOURCES for slug in source(lesson_slug, course_slug)]


def register_kind(resolve: Callable[[str], Template | None]) -> None:
    """Called by a KIND_MODULES module on import."""
    if resolve not in _RESOLVERS:
        _RESOLVERS.append(resolve)


def register_stored(
    current: Callable[[str], Template | None], at: Callable[[str, int], Template | None]
) -> None:
    """A kind kept in the database: `current(slug)` its current version, `at(slug,
    version)` one version, for rebuilding a stored question as drawn."""
    if current not in _STORED:
        _STORED.append(current)
    if at not in _VERSIONED:
        _VERSIONED.append(at)


@cache
def _load_all() -> None:
    import problems.templates as pkg

    for info in pkgutil.walk_packages(pkg.__path__, prefix=f"{pkg.__name__}."):
        importlib.import_module(info.name)
    for name in KIND_MODULES:
        importlib.import_module(name)


def get(slug: str, version: int | None = None) -> Template:
    """The template, or the question of another kind (an incident drill), with this slug:
    an attempt stores, grades and releases every kind alike. all_templates() and slugs()
    list templates only; problems.drills.registry lists the drills.

    With `version` (a stored question's template_version), a versioned kind answers with
    that version rather than its current one; a built-in template has one version, the
    code's, and is returned as ever."""
    _load_all()
    try:
        return _REGISTRY[slug]
    except KeyError:
        pass
    for resolve in _RESOLVERS:  # the pure kinds: no query
        found = resolve(slug)
        if found is not None:
            return found
    if version is not None:
        for resolve_at in _VERSIONED:
            found = resolve_at(slug, version)
            if found is not None:
                return found
    for resolve in _STORED:
        found = resolve(slug)
        if found is not None:
            return found
    raise UnknownTemplate(slug)


def all_templates() -> list[Template]:
    """Every registered template, ordered by slug."""
    _load_all()
    return [_REGISTRY[s] for s in sorted(_REGISTRY)]


def slugs() -> list[str]:
    return [t.slug for t in all_templates()]
