"""Writing authored templates: create, save a version, publish, archive.

Every write is refused unless the user is staff or a course-wide instructor of the
template's course (assess.selectors.access.user_is_course_instructor: an instructor
scoped to one LMS context may teach but not change the course). A document is checked
with problems.authored.loader.validate before anything is stored; a refusal names the
field path. Publishing sweeps PUBLISH_VARIANTS seeds with check_template.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction

from api_common.service_errors import Conflict, InvalidInput, NotPermitted
from assess.models import Question
from assess.selectors.access import user_is_course_instructor
from assess.services.regrade import RegradeReport, responses_regrade
from authoring.models import AuthoredTemplate, AuthoredVersion
from authoring.preview import MAX_PREVIEW_SEEDS, PREVIEW_SEEDS, Preview, preview
from authoring.selectors import NOT_AN_AUTHOR, latest_version
from curricula.models import Course
from problems.authored.loader import template_from_data, validate
from problems.drills import registry as drills
from problems.engine import registry
from problems.engine.check import check_template
from problems.engine.distinguish import TEMPLATE

PUBLISH_VARIANTS = 200


def _require(user, course_id: int) -> None:
    if not user_is_course_instructor(user=user, course_id=course_id):
        raise NotPermitted(NOT_AN_AUTHOR)


def _taken(except_slug: str | None = None) -> set[str]:
    taken = set(registry.slugs()) | set(drills.slugs())
    taken |= set(AuthoredTemplate.objects.values_list("slug", flat=True))
    taken.discard(except_slug)
    return taken


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a document: the field path (`parts[0].unit`; `(file)` for the
    whole) and the message in the author's words."""

    field: str
    message: str


def _problem(line: str) -> Problem:
    field, _, message = line.partition(": ")
    return Problem(field, message) if message else Problem("(file)", line)


def _validated(data: Any, except_slug: str | None) -> None:
    """InvalidInput on the request's `document`, every problem named by its path."""
    problems = validate(data, taken=_taken(except_slug))
    if problems:
        raise InvalidInput("; ".join(problems), field="document")


def document_problems(*, user, course: Course, data: Any, slug: str | None = None) -> list[Problem]:
    """Everything wrong with a document, saving nothing ([] when it would be accepted);
    `slug`: the template it would become a version of, whose own slug is not a clash."""
    _require(user, course.pk)
    return [_problem(line) for line in validate(data, taken=_taken(slug))]


def document_preview(
    *, user, course: Course, data: Any, seeds: list[int] | None = None, slug: str | None = None
) -> Preview:
    """A few seeds with answers and the misconception check, saving nothing; InvalidInput
    (the problems by path) for a document that would not be accepted."""
    _require(user, course.pk)
    seeds = list(range(PREVIEW_SEEDS)) if not seeds else seeds[:MAX_PREVIEW_SEEDS]
    _validated(data, except_slug=slug)
    return preview(data, seeds)


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
        raise InvalidInput(f"slug: must stay {template.slug!r}", field="document")
    _validated(data, except_slug=template.slug)
    row = AuthoredTemplate.objects.select_for_update().get(pk=template.pk)
    last = row.versions.order_by("-number").values_list("number", flat=True).first() or 0
    row.save(update_fields=["updated_at"])
    return _store_version(row, last + 1, data, user)


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
    seeds; Conflict naming the failures otherwise (the stored version is what fails, not
    the request)."""
    _require(user, template.course_id)
    report = check_template(template_from_data(latest_version(template).spec), PUBLISH_VARIANTS)
    failures = report.failures + _never_named(report)
    if failures:
        raise Conflict("; ".join(failures[:10]))
    template.status = AuthoredTemplate.Status.PUBLISHED
    template.save(update_fields=["status", "updated_at"])
    return template


def template_archive(*, user, template: AuthoredTemplate) -> AuthoredTemplate:
    """No longer drawn by new attempts; stored questions still rebuild from their version."""
    _require(user, template.course_id)
    template.status = AuthoredTemplate.Status.ARCHIVED
    template.save(update_fields=["status", "updated_at"])
    return template


def template_regrade(*, user, template: AuthoredTemplate, dry_run: bool = False) -> RegradeReport:
    """Regrade every stored answer to the template with its latest published version
    (assess.services.regrade: refused, nothing stored, when a question's parameters do
    not fit it). Not by someone who answered it themselves: nobody regrades their own
    work."""
    _require(user, template.course_id)
    if template.status != AuthoredTemplate.Status.PUBLISHED:
        raise Conflict("only a published template's answers can be regraded to it")
    if Question.objects.filter(template_slug=template.slug, attempt__learner=user).exists():
        raise NotPermitted(
            "you answered this template yourself; another instructor or staff must regrade it"
        )
    report = responses_regrade(template_slug=template.slug, dry_run=dry_run, actor=user)
    if report.refused and not dry_run:
        raise Conflict(report.refused)
    return report
