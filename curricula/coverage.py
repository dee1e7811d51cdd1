"""Which lessons have problem templates to test them, and which gaps are on purpose.

Pure: it works on rows, so the same report comes from the data files (no database) or
from the loaded tables, and the two can be compared.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from curricula.schema import CORE_TEMPLATE_SLUGS, Catalog

# A lesson tested by one template is tested by one way of asking: a learner who has
# memorised its formula passes. Two, from different angles, is the least we ship.
MIN_TEMPLATES = 2


@dataclass(frozen=True)
class LessonRow:
    course: str
    module: str
    lesson: str
    status: str
    templates: tuple[str, ...]

    @property
    def path(self) -> str:
        return f"{self.course}/{self.lesson}"


@dataclass(frozen=True)
class CoverageReport:
    rows: tuple[LessonRow, ...]
    min_templates: int = MIN_TEMPLATES

    @property
    def gaps(self) -> tuple[LessonRow, ...]:
        """Lessons that claim to be ready but nothing can test: these fail the check."""
        return tuple(r for r in self.rows if not r.templates and r.status != "planned")

    @property
    def thin(self) -> tuple[LessonRow, ...]:
        """Ready lessons with some templates, but fewer than min_templates: these fail."""
        return tuple(r for r in self.rows if 0 < len(r.templates) < self.min_templates)

    @property
    def planned_gaps(self) -> tuple[LessonRow, ...]:
        """Conceptual lessons marked `planned`, waiting for templates a later issue adds."""
        return tuple(r for r in self.rows if not r.templates and r.status == "planned")

    @property
    def unused_core_templates(self) -> tuple[str, ...]:
        used = {slug for row in self.rows for slug in row.templates}
        return tuple(slug for slug in CORE_TEMPLATE_SLUGS if slug not in used)

    @property
    def ok(self) -> bool:
        return not self.gaps and not self.thin and not self.unused_core_templates


def rows_from_catalog(catalog: Catalog) -> list[LessonRow]:
    return [
        LessonRow(course.slug, module.slug, lesson.slug, lesson.status, tuple(lesson.templates))
        for course, module, lesson in catalog.lessons()
    ]


def coverage_report(
    rows: Iterable[LessonRow], min_templates: int = MIN_TEMPLATES
) -> CoverageReport:
    return CoverageReport(rows=tuple(rows), min_templates=min_templates)
