"""Organisations, their members and managers, and the teams a manager certifies.

A manager is a role in an organisation, not in a course: they see the readiness of
their organisation's members (every team of it) and revoke their certificates. Teams
group members for the readiness matrix; a team member is always a member of the team's
organisation (orgs.services keeps that true).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from config.constraints import choice_check


class Organization(models.Model):
    slug = models.SlugField(max_length=100, unique=True)
    name = models.CharField(max_length=200)
    created_at = models.DateTimeField(default=timezone.now)

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
