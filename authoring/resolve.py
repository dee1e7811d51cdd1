"""Authored templates for the engine registry, read from the database.

authored_resolver(slug) is what registry.get falls back to: the published template's
CURRENT version. Each lookup reads the one spec row (so a new version or a publish is
seen at once, with no TTL to wait out) and the compiled template is cached by the
spec's text, so an unchanged version is compiled once per process.

A stored question must be rebuilt with the version it drew, not the current one:
template_at(slug, version) builds that version, and is registered with
registry.register_stored, so assess's Variant.from_params(slug, params, version)
(grading, the worked solution, hints) reaches it without importing this app.
"""

from __future__ import annotations

import json
from functools import lru_cache

from problems.authored.loader import template_from_data
from problems.authored.template import AuthoredTemplate


@lru_cache(maxsize=256)
def _compiled(spec_text: str, course: str) -> AuthoredTemplate:
    template = template_from_data(json.loads(spec_text))
    # The course it belongs to: only that course's quizzes may put it in a slot
    # (assess.services.quizzes.spec reads it without knowing this app).
    template.owner_course = course
    return template


def _from_row(row: tuple | None) -> AuthoredTemplate | None:
    """A version's (spec, course slug) row as its compiled template, or None for no row."""
    return None if row is None else _compiled(json.dumps(row[0], sort_keys=True), row[1])


def _build(slug: str, number: int) -> AuthoredTemplate | None:
    from authoring.models import AuthoredVersion

    row = (
        AuthoredVersion.objects.filter(template__slug=slug, number=number)
        .values_list("spec", "template__course__slug")
        .first()
    )
    return _from_row(row)


_TABLES_SEEN = False


def _stored() -> bool:
    """Whether the authoring tables exist: `manage.py problems` runs the pure engine with
    no migrated database, where an unknown slug must stay "unknown", not a database
    error. Checked until they are found, then trusted for the process."""
    global _TABLES_SEEN
    if not _TABLES_SEEN:
        from django.db import DatabaseError, connection

        from authoring.models import AuthoredTemplate as Row

        try:
            _TABLES_SEEN = Row._meta.db_table in connection.introspection.table_names()
        except (DatabaseError, RuntimeError):  # no database here (RuntimeError: pytest-django's
            return False  # guard in a test of the pure engine); asked again next time
    return _TABLES_SEEN


def authored_resolver(slug: str) -> AuthoredTemplate | None:
    """The published template's current version: one query (its latest version's spec
    and course), as every slot of a quiz asks it for each of its templates."""
    if not _stored():
        return None
    from authoring.models import AuthoredTemplate as Row
    from authoring.models import AuthoredVersion

    try:
        row = (
            AuthoredVersion.objects.filter(
                template__slug=slug, template__status=Row.Status.PUBLISHED
            )
            .order_by("-number")
            .values_list("spec", "template__course__slug")
            .first()
        )
    except RuntimeError:  # no database access on this path (pytest-django's guard around
        return None  # a test of the pure engine, after another test found the tables)
    return _from_row(row)


def template_at(slug: str, version: int) -> AuthoredTemplate | None:
    """Version `version` of the authored template (whatever its status now), or None."""
    if not _stored():
        return None
    try:
        return _build(slug, version)
    except RuntimeError:  # as above
        return None


def lesson_templates(lesson_slug: str, course_slug: str) -> list[str]:
    """Published templates of the course whose current version lists the lesson, by slug:
    lesson practice draws them beside the curriculum's (one query)."""
    if not _stored():
        return []
    from django.db.models import OuterRef, Subquery

    from authoring.models import AuthoredTemplate as Row
    from authoring.models import AuthoredVersion

    latest = AuthoredVersion.objects.filter(template=OuterRef("pk")).order_by("-number")
    rows = (
        Row.objects.filter(course__slug=course_slug, status=Row.Status.PUBLISHED)
        .annotate(lessons=Subquery(latest.values("spec__lessons")[:1]))
        .order_by("slug")
        .values_list("slug", "lessons")
    )
    return [slug for slug, lessons in rows if _lists(lessons, lesson_slug)]


def _lists(lessons, lesson_slug: str) -> bool:
    """A JSON list read back through a subquery: a list on PostgreSQL, its text on SQLite."""
    if isinstance(lessons, str):
        lessons = json.loads(lessons)
    return isinstance(lessons, list) and lesson_slug in lessons
