"""Writes for organisations and teams; the admin and load_demo go through these."""

from __future__ import annotations

from allauth.socialaccount.models import SocialAccount
from django.db import transaction

from api_common.service_errors import InvalidInput
from audit.models import AuditEvent
from audit.services import audit_record
from orgs.models import IdentityProvider, Membership, Organization, Team, TeamMember


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


def member_remove(*, actor, membership: Membership) -> None:
    """Deprovision a member: a manager (or staff) takes them out of the organisation.

    In one transaction: their memberships of its teams end (the readiness matrices and
    their CSV stop listing them), the membership goes (so the managers' gates,
    orgs.selectors.person_get_for and user_manages, no longer find them: the on-call
    check and their certificates' revocation answer 404), and their sign-in through the
    organisation's provider is unlinked, so the provider cannot sign them back in as a
    member (a new sign-on with their address is refused like any non-member's). Their
    account, its certificates (still verifiable, as history) and other organisations
    stay. The caller found `membership` through organization_get_for_manager; a manager
    cannot remove themselves (another manager or staff does). Audited: one event for the
    removal, naming the teams it ended."""
    user, organization = membership.user, membership.organization
    if actor is not None and actor.pk == user.pk and not actor.is_staff:
        raise InvalidInput("You cannot remove yourself: ask another manager or staff.")
    with transaction.atomic():
        team_rows = TeamMember.objects.filter(team__organization=organization, user=user)
        teams = sorted(team_rows.values_list("team__slug", flat=True))
        team_rows.delete()
        provider = IdentityProvider.objects.filter(organization=organization).first()
        unlinked = 0
        if provider is not None:
            unlinked, _ = SocialAccount.objects.filter(
                user=user, provider=provider.app.provider_id
            ).delete()
        deleted, _ = Membership.objects.filter(pk=membership.pk).delete()
        if deleted:
            audit_record(
                actor=actor,
                action=AuditEvent.Action.MEMBER_REMOVE,
                target=organization,
                detail={
                    "user": user.get_username(),
                    "role": membership.role,
                    "teams": teams,
                    "sign_on_unlinked": bool(unlinked),
                },
            )
