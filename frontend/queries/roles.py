"""The roles the site menu shows links for, read in one query."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef

from assess.models import CourseRole
from orgs.models import Membership


def menu_roles(*, user) -> tuple[bool, bool]:
    """(instructs a course, manages an organisation) for a signed-in, non-staff user.
    The same rules as assess.selectors.user_is_teacher and orgs.selectors.user_is_manager,
    asked together because every page's menu needs both."""
    row = (
        get_user_model()
        .objects.filter(pk=user.pk)
        .annotate(
            teaches=Exists(
                CourseRole.objects.filter(user=OuterRef("pk"), role=CourseRole.Role.INSTRUCTOR)
            ),
            manages=Exists(
                Membership.objects.filter(user=OuterRef("pk"), role=Membership.Role.MANAGER)
            ),
        )
        .values_list("teaches", "manages")
        .first()
    )
    return (bool(row[0]), bool(row[1])) if row else (False, False)
