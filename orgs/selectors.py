"""The one gate to organisation data: who manages what, and whom a person may ask about.

A manager sees the teams and members of the organisations they manage; staff see all.
Anyone else gets DoesNotExist (a 404), never a hint that the team or person exists.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.urls import reverse

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


def person_get_for(*, asker, username: str):
    """The user named `username` if the asker is that user, staff, or a manager of an
    organisation they belong to; User.DoesNotExist otherwise.

    One query, whose condition carries the rule: a person the asker may not see and a
    name nobody has run the same statement and find nothing, so neither the answer nor
    its time says which usernames exist (a lookup by name, then a second query for the
    rule, took 1.2 ms longer for a person who exists)."""
    people = get_user_model().objects.filter(username=username)
    if not asker.is_staff:
        managed = Membership.objects.filter(
            user_id=OuterRef("pk"), organization_id__in=managed_org_ids(user=asker)
        )
        people = people.filter(Q(pk=asker.pk) | Exists(managed))
    return people.get()


def organizations_of(*, user) -> QuerySet[Organization]:
    return Organization.objects.filter(memberships__user=user).distinct()
