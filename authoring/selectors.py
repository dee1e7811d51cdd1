"""Reading authored templates: one gate for each object.

A course's authored templates, drafts included, are for its course-wide instructors and
staff only (assess.selectors.access.user_is_course_instructor). The course itself is
public (the catalogue), so asking to author in it without the role is a 403
(NotPermitted); a template belongs to a course the user cannot author in reads as absent
(DoesNotExist, a 404), so its slug's existence stays private.
"""

from __future__ import annotations

from django.db.models import Count, OuterRef, QuerySet, Subquery

from api_common.service_errors import NotPermitted
from assess.selectors.access import user_is_course_instructor
from authoring.models import AuthoredTemplate, AuthoredVersion
from curricula.models import Course

NOT_AN_AUTHOR = "only the course's course-wide instructors and staff write its templates"


def course_templates(*, course_id: int, status: str | None = None) -> QuerySet[AuthoredTemplate]:
    """The course's templates by slug, each with its version count."""
    rows = AuthoredTemplate.objects.filter(course_id=course_id)
    if status is not None:
        rows = rows.filter(status=status)
    return rows.annotate(version_count=Count("versions")).order_by("slug")


def course_for_author(*, user, slug: str) -> Course:
    """The course, if the user writes its templates: DoesNotExist for an unknown slug,
    NotPermitted for a course they may not author in."""
    course = Course.objects.get(slug=slug)
    if not user_is_course_instructor(user=user, course_id=course.pk):
        raise NotPermitted(NOT_AN_AUTHOR)
    return course


def template_for_author(*, user, slug: str) -> AuthoredTemplate:
    """The template with its course, if the user writes the course's templates;
    DoesNotExist otherwise, as for an unknown slug."""
    row = AuthoredTemplate.objects.select_related("course").get(slug=slug)
    if not user_is_course_instructor(user=user, course_id=row.course_id):
        raise AuthoredTemplate.DoesNotExist("No authored template with that slug for you.")
    return row


def template_versions(*, template: AuthoredTemplate) -> QuerySet[AuthoredVersion]:
    """Its versions, newest first, with who saved each."""
    return template.versions.select_related("created_by").order_by("-number")


def template_version(*, template: AuthoredTemplate, number: int) -> AuthoredVersion:
    return template.versions.select_related("created_by").get(number=number)


def latest_version(template: AuthoredTemplate) -> AuthoredVersion:
    return template.versions.select_related("created_by").order_by("-number").first()


def published_templates(*, course_ids) -> list[tuple[str, str, str]]:
    """(slug, title of the latest version, course slug) of the published templates of
    those courses, by slug, in one query: what the quiz builder offers beside the
    built-in templates."""
    latest = AuthoredVersion.objects.filter(template=OuterRef("pk")).order_by("-number")
    rows = (
        AuthoredTemplate.objects.filter(
            course_id__in=list(course_ids), status=AuthoredTemplate.Status.PUBLISHED
        )
        .annotate(title=Subquery(latest.values("spec__title")[:1]))
        .order_by("slug")
        .values_list("slug", "title", "course__slug")
    )
    return [(slug, str(title or slug), course) for slug, title, course in rows]
