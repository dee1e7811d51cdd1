"""Which objectives something tests, per course: the report behind `--by-objective`.

The lesson-level report (coverage.py) counts links, so a lesson whose two templates ask
about something else still passes. This one counts objectives: an objective is tested
when its `tested_by` names at least one template, drill or capstone criterion (the link
test, tests/curricula/test_objective_links.py, keeps those links honest). Any untested
objective fails the report, because the outlines promise every one of them.

Pure: it reads a validated Catalog and touches neither the database nor the registry.
"""

from __future__ import annotations

from dataclasses import dataclass

from curricula.schema import Catalog


@dataclass(frozen=True)
class ObjectiveRow:
    course: str
    lesson: str
    text: str
    refs: tuple[str, ...]

    @property
    def tested(self) -> bool:
        return bool(self.refs)


@dataclass(frozen=True)
class CourseObjectives:
    course: str
    rows: tuple[ObjectiveRow, ...]
    # Lesson templates that test none of that lesson's objectives: shown, not failed, since
    # a lesson may keep a template for practice; the issue wants them looked at.
    idle_templates: tuple[tuple[str, str], ...] = ()

    @property
    def untested(self) -> tuple[ObjectiveRow, ...]:
        return tuple(row for row in self.rows if not row.tested)

    @property
    def counts(self) -> tuple[int, int, int]:
        """(objectives, tested, untested)."""
        untested = len(self.untested)
        return len(self.rows), len(self.rows) - untested, untested


@dataclass(frozen=True)
class ObjectiveReport:
    courses: tuple[CourseObjectives, ...]

    @property
    def untested(self) -> tuple[ObjectiveRow, ...]:
        return tuple(row for course in self.courses for row in course.untested)

    @property
    def counts(self) -> tuple[int, int, int]:
        totals = [course.counts for course in self.courses]
        return tuple(sum(column) for column in zip(*totals, strict=True)) if totals else (0, 0, 0)

    @property
    def ok(self) -> bool:
        return not self.untested


def objective_report(catalog: Catalog) -> ObjectiveReport:
    courses = []
    for course in catalog.courses:
        rows: list[ObjectiveRow] = []
        idle: list[tuple[str, str]] = []
        for _module, lesson in course.lessons():
            used: set[str] = set()
            for objective in lesson.objectives:
                rows.append(ObjectiveRow(course.slug, lesson.slug, objective.text, objective.refs))
                used.update(objective.refs)
            idle.extend((lesson.slug, slug) for slug in lesson.templates if slug not in used)
        courses.append(CourseObjectives(course.slug, tuple(rows), tuple(idle)))
    return ObjectiveReport(tuple(courses))
