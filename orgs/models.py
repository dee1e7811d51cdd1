"""Organisations, their members and managers, the teams a manager certifies, and an
organisation's single sign-on.

A manager is a role in an organisation, not in a course: they see the readiness of
their organisation's members (every team of it) and revoke their certificates. Teams
group members for the readiness matrix; a team member is always a member of the team's
organisation (orgs.services keeps that true).

An organisation may sign its people in through its own OIDC identity provider
(IdentityProvider: allauth's SocialApp holds the issuer, client id and secret; the
provider's email domains say whose addresses it may vouch for). It may require it of
its members, whose passwords then sign nothing in (accounts.backends).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone

from config.constraints import choice_check


class Organization(models.Model):
    slug = models.SlugField(max_length=100, unique=True)
    name = models.CharField(max_length=200)
    created_at = models.DateTimeField(default=timezone.now)
    managers_manage_sso = models.BooleanField(
        default=False,
        help_text="Its managers may register and change its single sign-on (staff always "
        "may). Off by default: the provider vouches for whoever signs in through it.",
    )

    class Meta:
        ordering = ["name", "id"]

    def __str__(self) -> str:
        return self.name


class MembershipRole(models.TextChoices):
    MEMBER = "member", "Member"
    MANAGER = "manager", "Manager"


class Membership(models.Model):
    Role = MembershipRole

    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="memberships", db_index=False
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="org_memberships"
    )
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.MEMBER)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["organization", "user"]
        constraints = [
            models.UniqueConstraint(fields=["organization", "user"], name="orgs_membership_once"),
            choice_check("role", MembershipRole, name="orgs_membership_role_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.role} of {self.organization}"


class Team(models.Model):
    organization = models.ForeignKey(
        Organization, on_delete=models.CASCADE, related_name="teams", db_index=False
    )
    slug = models.SlugField(max_length=100)
    name = models.CharField(max_length=200)
    # The certification tracks this team's rotation asks for (its matrix columns);
    # empty: every track.
    tracks = models.ManyToManyField("certify.Track", blank=True, related_name="teams")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["organization", "name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["organization", "slug"], name="orgs_team_slug")
        ]

    def __str__(self) -> str:
        return f"{self.organization} / {self.name}"


class TeamMember(models.Model):
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="members", db_index=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="team_memberships"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["team", "user"]
        constraints = [models.UniqueConstraint(fields=["team", "user"], name="orgs_team_member")]

    def __str__(self) -> str:
        return f"{self.user} in {self.team}"


class IdentityProvider(models.Model):
    """The organisation's OIDC identity provider. `app` is allauth's SocialApp (provider
    `openid_connect`, provider_id the organisation's slug), which allauth reads for the
    issuer (settings["server_url"]), client id and secret; written only by
    orgs.sso.identity_provider_save."""

    organization = models.OneToOneField(
        Organization, on_delete=models.CASCADE, related_name="identity_provider"
    )
    app = models.OneToOneField(
        "socialaccount.SocialApp", on_delete=models.CASCADE, related_name="identity_provider"
    )
    required = models.BooleanField(
        default=False,
        help_text="Members sign in through the provider only: password sign-in (the "
        "sign-in page, the admin's, POST /api/auth/token/) is refused for them.",
    )
    updated_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"Single sign-on of {self.organization}"


class IdentityProviderDomain(models.Model):
    """An email domain whose addresses the provider may sign in (lower case, exact: a
    subdomain is its own row). One organisation per domain."""

    provider = models.ForeignKey(IdentityProvider, on_delete=models.CASCADE, related_name="domains")
    domain = models.CharField(max_length=253, unique=True)

    class Meta:
        ordering = ["domain"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(domain=Lower("domain")),
                name="orgs_sso_domain_lower_case",
            )
        ]

    def __str__(self) -> str:
        return self.domain
