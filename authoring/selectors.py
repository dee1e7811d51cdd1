"""Reading a course's authored templates."""

from authoring.models import AuthoredTemplate


def course_templates(*, course_id: int, status: str | None = None):
    """The course's templates by slug, each with its version count."""
    from django.db.models import Count

    rows = AuthoredTemplate.objects.filter(course_id=course_id)
    if status is not None:
        rows = rows.filter(status=status)
    return rows.annotate(version_count=Count("versions")).order_by("slug")
