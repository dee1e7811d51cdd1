"""Writes for organisations and teams; the admin and load_demo go through these."""

from __future__ import annotations

from django.db import transaction

from audit.models import AuditEvent
from audit.services import audit_record
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


def team_member_add(*, team: Team, user, actor=None) -> TeamMember:
    """A team member is always a member of the team's organisation (added if not). A
    new team member is audited, by `actor` (None: the system, such as load_demo)."""
    with transaction.atomic():
        Membership.objects.get_or_create(organization=team.organization, user=user)
        member, created = TeamMember.objects.get_or_create(team=team, user=user)
        if created:
            _audit(actor, AuditEvent.Action.TEAM_MEMBER_ADD, team, user)
    return member


def team_member_remove(*, team: Team, user, actor=None) -> None:
    """Take the user off the team (they stay in the organisation); audited if they
    were on it."""
    with transaction.atomic():
        deleted, _ = TeamMember.objects.filter(team=team, user=user).delete()
        if deleted:
            _audit(actor, AuditEvent.Action.TEAM_MEMBER_REMOVE, team, user)


def _audit(actor, action: str, team: Team, user) -> None:
    audit_record(actor=actor, action=action, target=team, detail={"user": user.get_username()})
