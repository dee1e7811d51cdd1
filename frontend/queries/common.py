"""Small lookups shared by the page queries."""

from __future__ import annotations

from assess import skills as skill_map
from curricula.models import Lesson
from problems.engine import registry
from problems.engine.numbers import sig


def lesson_skills(lesson: Lesson) -> tuple[str, ...]:
    """The lesson's skills from its templates (links must be prefetched)."""
    slugs = skill_map.known_templates(link.template_slug for link in lesson.template_links.all())
    return skill_map.lesson_skills(slugs)


def template_title(slug: str) -> str:
    try:
        return registry.get(slug).title
    except KeyError:
        return slug


def answer_text(part: dict) -> str:
    """A solved part for display once allowed: four significant figures, as taught."""
    value = part["value"]
    if part["kind"] == "choice":
        return str(value)
    if part["kind"] == "integer":
        return f"{int(value)} {part['unit']}".strip()
    return f"{sig(float(value), 4)} {part['unit']}".strip()


def weakest_estimate(mastery) -> float | None:
    """The estimate of the skill holding a lesson back (a selectors.LessonMastery), or
    None when that skill has no answer yet: its figure would be the model's prior, which
    reads as a measurement it is not."""
    row = next((s for s in mastery.skills if s.skill == mastery.summary.weakest), None)
    if row is None or not row.evidence:
        return None
    return mastery.summary.weakest_p
