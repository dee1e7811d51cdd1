"""The one gate to organisation data: who manages what, and whom a person may ask about.

A manager sees the teams and members of the organisations they manage; staff see all.
Anyone else gets DoesNotExist (a 404), never a hint that the team or person exists.
"""

from __future__ import annotations

import functools

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import QuerySet
from django.urls import reverse

from api_common.rows import Columns, fetch
from orgs.models import Membership, Organization, Team, TeamMember


def managed_org_ids(*, user) -> QuerySet:
    return Membership.objects.filter(user=user, role=Membership.Role.MANAGER).values(
        "organization_id"
    )


def user_is_manager(*, user) -> bool:
    return user.is_authenticated and (user.is_staff or managed_org_ids(user=user).exists())


def manager_landing(*, user) -> str | None:
    """The page a (non-staff) manager lands on after signing in: their one team's
    readiness, or the list of their teams; None for anyone else. Two queries at most."""
    if user.is_staff or not user.is_authenticated:
        return None
    if not managed_org_ids(user=user).exists():
        return None
    teams = Team.objects.filter(organization_id__in=managed_org_ids(user=user))
    teams = list(teams.order_by("pk").values_list("pk", flat=True)[:2])
    if len(teams) == 1:
        return reverse("team-detail", args=[teams[0]])
    return reverse("teams")


def teams_for_manager(*, user) -> QuerySet[Team]:
    teams = Team.objects.select_related("organization").prefetch_related("tracks")
    if user.is_staff:
        return teams
    return teams.filter(organization_id__in=managed_org_ids(user=user))


def team_get_for_manager(*, user, pk: int) -> Team:
    """A team of an organisation the user manages (any, for staff); Team.DoesNotExist
    otherwise."""
    return teams_for_manager(user=user).get(pk=pk)


def team_member_users(*, team: Team) -> list:
    return [
        m.user
        for m in TeamMember.objects.filter(team=team)
        .select_related("user")
        .order_by("user__username")
    ]


def user_manages(*, manager, user_id: int) -> bool:
    """Does `manager` manage an organisation `user_id` belongs to (or is staff)?"""
    if manager.is_staff:
        return True
    return Membership.objects.filter(
        user_id=user_id, organization_id__in=managed_org_ids(user=manager)
    ).exists()


@functools.cache  # built at first use, once the apps are loaded
def _person_statements() -> tuple[Columns, str, str]:
    """(columns, SQL for staff, SQL for anyone else) of person_get_for's read: the
    certification check runs it on every call, and the ORM took 1.9 ms to build a
    statement PostgreSQL runs in a tenth of that (bench/README.md, issue 43)."""
    user_model = get_user_model()
    quote = connection.ops.quote_name
    columns = Columns(user_model, "u")
    users, pk = quote(user_model._meta.db_table), quote(user_model._meta.pk.column)
    name = quote(user_model._meta.get_field(user_model.USERNAME_FIELD).column)
    memberships = quote(Membership._meta.db_table)
    by_name = f"SELECT {columns.sql} FROM {users} u WHERE u.{name} = %s"  # noqa: S608
    managed = (
        f"SELECT 1 FROM {memberships} m WHERE m.user_id = u.{pk} AND m.organization_id IN "  # noqa: S608
        f"(SELECT a.organization_id FROM {memberships} a WHERE a.user_id = %s AND a.role = %s)"
    )
    return columns, by_name, f"{by_name} AND (u.{pk} = %s OR EXISTS ({managed}))"


def person_get_for(*, asker, username: str):
    """The user named `username` if the asker is that user, staff, or a manager of an
    organisation they belong to; User.DoesNotExist otherwise.

    One query, whose condition carries the rule: a person the asker may not see and a
    name nobody has run the same statement and find nothing, so neither the answer nor
    its time says which usernames exist (a lookup by name, then a second query for the
    rule, took 1.2 ms longer for a person who exists). Written as SQL, held to the
    queryset it replaced by tests/certify/test_check_reads.py."""
    columns, for_staff, for_others = _person_statements()
    if asker.is_staff:
        rows = fetch(for_staff, [username])
    else:
        rows = fetch(for_others, [username, asker.pk, asker.pk, Membership.Role.MANAGER])
    if not rows:
        raise get_user_model().DoesNotExist("no such person for this asker")
    return columns.load(rows[0])


def organizations_of(*, user) -> QuerySet[Organization]:
    return Organization.objects.filter(memberships__user=user).distinct()


def organizations_managed_by(*, user) -> QuerySet[Organization]:
    """The organisations whose members the user may remove (every one, for staff)."""
    if user.is_staff:
        return Organization.objects.all()
    return Organization.objects.filter(pk__in=managed_org_ids(user=user))


def organization_get_for_manager(*, user, slug: str) -> Organization:
    """An organisation the user manages (any, for staff); Organization.DoesNotExist
    otherwise, so its members page is a 404 to everyone else."""
    return organizations_managed_by(user=user).get(slug=slug)


def members_of(*, organization: Organization) -> list[Membership]:
    """Its memberships, each with its user and the names of their teams here, in three
    queries whatever the number of members."""
    memberships = list(
        Membership.objects.filter(organization=organization)
        .select_related("user")
        .order_by("user__username")
    )
    teams: dict[int, list[str]] = {}
    rows = TeamMember.objects.filter(team__organization=organization).values_list(
        "user_id", "team__name"
    )
    for user_id, name in rows.order_by("team__name"):
        teams.setdefault(user_id, []).append(name)
    for membership in memberships:
        membership.team_names = teams.get(membership.user_id, [])
    return memberships


def membership_get(*, organization: Organization, user_id: int) -> Membership:
    """One member of an organisation already passed through the gate; DoesNotExist
    (a 404) for anyone who is not its member."""
    return Membership.objects.select_related("user").get(organization=organization, user_id=user_id)
