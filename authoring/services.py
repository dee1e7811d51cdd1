"""Writing authored templates: create, save a version, publish, archive.

Every write is refused unless the user is staff or a course-wide instructor of the
template's course (assess.selectors.access.user_is_course_instructor: an instructor
scoped to one LMS context may teach but not change the course). A document is checked
with problems.authored.loader.validate before anything is stored; a refusal names the
field path. Publishing sweeps PUBLISH_VARIANTS seeds with check_template.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from api_common.service_errors import InvalidInput, NotPermitted
from assess.selectors.access import user_is_course_instructor
from authoring.models import AuthoredTemplate, AuthoredVersion
from curricula.models import Course
from problems.authored.loader import template_from_data, validate
from problems.drills import registry as drills
from problems.engine import registry
from problems.engine.check import check_template
from problems.engine.distinguish import TEMPLATE

PUBLISH_VARIANTS = 200


def _require(user, course_id: int) -> None:
    if not user_is_course_instructor(user=user, course_id=course_id):
        raise NotPermitted("only the course's course-wide instructors and staff may do this")


def _taken(except_slug: str | None = None) -> set[str]:
    taken = set(registry.slugs()) | set(drills.slugs())
    taken |= set(AuthoredTemplate.objects.values_list("slug", flat=True))
    taken.discard(except_slug)
    return taken


def _validated(data: Any, except_slug: str | None) -> None:
    problems = validate(data, taken=_taken(except_slug))
    if problems:
        field = problems[0].split(":", 1)[0]
        raise InvalidInput("; ".join(problems), field=field)


@transaction.atomic
def template_create(*, user, course: Course, data: Any) -> AuthoredTemplate:
    """A new draft with version 1; InvalidInput (nothing stored) if the data is not valid."""
    _require(user, course.pk)
    return create_unchecked(course=course, data=data, user=user)


def create_unchecked(*, course: Course, data: Any, user=None) -> AuthoredTemplate:
    """template_create without the role check: for the operator's `manage.py authoring
    import`, who is trusted as the shell is."""
    _validated(data, except_slug=None)
    row = AuthoredTemplate.objects.create(course=course, slug=data["slug"], created_by=user)
    _store_version(row, 1, data, user)
    return row


def _store_version(row: AuthoredTemplate, number: int, data: Any, user) -> AuthoredVersion:
    spec = dict(data, version=number)  # the version a drawn question records
    return AuthoredVersion.objects.create(template=row, number=number, spec=spec, created_by=user)


@transaction.atomic
def version_save(*, user, template: AuthoredTemplate, data: Any) -> AuthoredVersion:
    """The next version; earlier ones stay as they were. The slug cannot change."""
    _require(user, template.course_id)
    return save_unchecked(template=template, data=data, user=user)


@transaction.atomic
def save_unchecked(*, template: AuthoredTemplate, data: Any, user=None) -> AuthoredVersion:
    """version_save without the role check (the import command)."""
    if isinstance(data, dict) and data.get("slug") != template.slug:
        raise InvalidInput(f"slug: must stay {template.slug!r}", field="slug")
    _validated(data, except_slug=template.slug)
    row = AuthoredTemplate.objects.select_for_update().get(pk=template.pk)
    last = row.versions.order_by("-number").values_list("number", flat=True).first() or 0
    row.save(update_fields=["updated_at"])
    return _store_version(row, last + 1, data, user)


def latest_version(template: AuthoredTemplate) -> AuthoredVersion:
    return template.versions.order_by("-number").first()


def _never_named(report) -> list[str]:
    """The author's own misconceptions a grader could name in no variant (one equal to the
    answer, say): the engine's check drops such a slip silently, as it must for a slip
    that coincides with the answer in some variants, but a slip that never differs is a
    mistake in the document."""
    return [
        f"parts.{row.part}.misconceptions.{row.misconception}: never told apart from the "
        f"right answer ({row.distinguishable} of {report.variants} variants)"
        for row in report.distinguish.rows.values()
        if row.source == TEMPLATE and row.distinguishable == 0
    ]


def template_publish(*, user, template: AuthoredTemplate) -> AuthoredTemplate:
    """Published when its latest version passes the engine's check over PUBLISH_VARIANTS
    seeds; InvalidInput naming the failures otherwise."""
    _require(user, template.course_id)
    report = check_template(template_from_data(latest_version(template).spec), PUBLISH_VARIANTS)
    failures = report.failures + _never_named(report)
    if failures:
        raise InvalidInput("; ".join(failures[:10]), field="spec")
    template.status = AuthoredTemplate.Status.PUBLISHED
    template.save(update_fields=["status", "updated_at"])
    return template


def template_archive(*, user, template: AuthoredTemplate) -> AuthoredTemplate:
    """No longer drawn by new attempts; stored questions still rebuild from their version."""
    _require(user, template.course_id)
    template.status = AuthoredTemplate.Status.ARCHIVED
    template.save(update_fields=["status", "updated_at"])
    return template
