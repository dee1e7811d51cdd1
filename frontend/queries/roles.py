"""The roles the site menu shows links for, read in one statement."""

from __future__ import annotations

import functools

from django.db import connection

from api_common.rows import fetch
from assess.models import CourseRole
from orgs.models import Membership


@functools.cache  # built at first use, once the apps are loaded: every page asks it
def _statement() -> str:
    """Two EXISTS in one SELECT, written as SQL: every page's menu asks it, and the
    queryset it replaces (the user's row annotated with two Exists) cost 0.7 ms to build
    for 0.014 ms to run (bench/README.md, the web-page exam;
    tests/api_common/test_sql_equivalence.py holds it to the selectors' rules)."""
    q = connection.ops.quote_name
    tables = [
        (q(m.db_table), q(m.get_field("user").column), q(m.get_field("role").column))
        for m in (CourseRole._meta, Membership._meta)
    ]
    (r, r_user, r_role), (m, m_user, m_role) = tables
    return (
        f"SELECT EXISTS (SELECT 1 FROM {r} WHERE {r_user} = %s AND {r_role} = %s), "  # noqa: S608
        f"EXISTS (SELECT 1 FROM {m} WHERE {m_user} = %s AND {m_role} = %s)"
    )


def menu_roles(*, user) -> tuple[bool, bool]:
    """(instructs a course, manages an organisation) for a signed-in, non-staff user.
    The same rules as assess.selectors.user_is_teacher and orgs.selectors.user_is_manager,
    asked together because every page's menu needs both."""
    params = [user.pk, CourseRole.Role.INSTRUCTOR.value, user.pk, Membership.Role.MANAGER.value]
    ((teaches, manages),) = fetch(_statement(), params)
    return bool(teaches), bool(manages)
