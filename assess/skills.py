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


def evidence_parts(slug: str, parts: Iterable[str]) -> tuple[str, ...]:
    """The parts whose answers are evidence of the template's skills: every part, but
    where the kind says otherwise (an incident drill's `fault` only: its other parts are
    the same diagnosis seen again, or findings the service records)."""
    try:
        own = getattr(registry.get(slug), "evidence_parts", None)
    except KeyError:
        own = None
    return tuple(p for p in parts if own is None or p in own)


def is_drill(slug: str) -> bool:
    """Is this slug an incident drill's (problems.drills.question), not a template's?"""
    try:
        return getattr(registry.get(slug), "kind", "template") == "drill"
    except KeyError:
        return False
