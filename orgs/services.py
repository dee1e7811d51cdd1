"""Writes for organisations and teams; the admin and load_demo go through these."""

from __future__ import annotations

from django.db import transaction

from orgs.models import Membership, Organization, Team, TeamMember


def organization_create(*, slug: str, name: str) -> Organization:
    org, _ = Organization.objects.get_or_create(slug=slug, defaults={"name": name})
    return org


def member_add(*, organization: Organization, user, role: str = Membership.Role.MEMBER):
    """Add (or re-role) a member. Idempotent."""
    membership, created = Membership.objects.get_or_create(
        organization=organization, user=user, defaults={"role": role}
    )
    if not created and membership.role != role:
        membership.role = role
        membership.save(update_fields=["role"])
    return membership


def team_create(*, organization: Organization, slug: str, name: str, tracks=()) -> Team:
    team, _ = Team.objects.get_or_create(
        organization=organization, slug=slug, defaults={"name": name}
    )
    if tracks:
        team.tracks.set(tracks)
    return team


def team_member_add(*, team: Team, user) -> TeamMember:
    """A team member is always a member of the team's organisation (added if not)."""
    with transaction.atomic():
        Membership.objects.get_or_create(organization=team.organization, user=user)
        member, _ = TeamMember.objects.get_or_create(team=team, user=user)
    return member


def team_member_remove(*, team: Team, user) -> None:
    TeamMember.objects.filter(team=team, user=user).delete()
