"""Skills come from the problem registry only; a lesson's skills are derived from it.

A lesson's skill set is the union of the skills of the templates linked to it, so the
lesson files and the templates cannot disagree about what a lesson exercises.
"""

from __future__ import annotations

from collections.abc import Iterable

from problems.engine import registry


def template_skills(slug: str) -> tuple[str, ...]:
    """The template's skills, or () for a slug the registry no longer knows."""
    try:
        return tuple(registry.get(slug).skills)
    except KeyError:
        return ()


def lesson_skills(template_slugs: Iterable[str]) -> tuple[str, ...]:
    """Union of the templates' skills, in first-seen order (the tie-break for practice)."""
    seen: dict[str, None] = {}
    for slug in template_slugs:
        for skill in template_skills(slug):
            seen.setdefault(skill, None)
    return tuple(seen)


def known_templates(template_slugs: Iterable[str]) -> list[str]:
    """The slugs the registry knows, in order: links may outlive a removed template."""
    known = []
    for slug in template_slugs:
        try:
            registry.get(slug)
        except KeyError:
            continue
        known.append(slug)
    return known
