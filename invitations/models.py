"""Invitations by email: a manager invites someone to their organisation or one of its
teams, an instructor to their course. The link mailed is one-use and expires; only a
SHA-256 of its token is stored, so the table (a backup, the admin) cannot be used to
accept anyone's invitation.

One row per invitation of one address to one place. `target_key` names the place in one
string ("team:5", "organization:3", "course:7") so that "one pending invitation per
address and place" is a plain partial unique constraint on every database (the three
nullable foreign keys would not do: NULLs are distinct in a unique index). Expiry is not
a status: a pending row past `expires_at` is expired (Invitation.state_at).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone

from config.constraints import choice_check


class InvitationStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    ACCEPTED = "accepted", "Accepted"
    REVOKED = "revoked", "Revoked"


class Invitation(models.Model):
    Status = InvitationStatus

    email = models.CharField(max_length=254, help_text="Lower case: who the link was mailed to.")
    # The place: a team (its organisation set too), an organisation alone, or a course.
    organization = models.ForeignKey(
        "orgs.Organization",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="invitations",
    )
    team = models.ForeignKey(
        "orgs.Team", on_delete=models.CASCADE, null=True, blank=True, related_name="invitations"
    )
    course = models.ForeignKey(
        "curricula.Course",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="invitations",
    )
    target_key = models.CharField(max_length=40)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="invitations_sent",
    )
    token_hash = models.CharField(
        max_length=64, unique=True, help_text="SHA-256 (hex) of the link's token."
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(default=timezone.now, help_text="The latest link's mailing.")
    expires_at = models.DateTimeField()
    sends = models.PositiveIntegerField(default=1, help_text="Links mailed (1 + resends).")
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="invitations_accepted",
    )
    closed_at = models.DateTimeField(
        null=True, blank=True, help_text="When it was accepted or revoked."
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["target_key", "status"], name="invitation_target")]
        constraints = [
            choice_check("status", InvitationStatus, name="invitation_status_valid"),
            models.UniqueConstraint(
                fields=["email", "target_key"],
                condition=models.Q(status="pending"),
                name="invitation_pending_once",
            ),
            models.CheckConstraint(
                condition=models.Q(email=Lower("email")), name="invitation_email_lower_case"
            ),
            # Exactly one place: a course, or an organisation (with or without a team).
            models.CheckConstraint(
                condition=(
                    models.Q(course__isnull=False, organization__isnull=True, team__isnull=True)
                    | models.Q(course__isnull=True, organization__isnull=False)
                ),
                name="invitation_one_place",
            ),
        ]

    def __str__(self) -> str:
        return f"Invitation of {self.email} to {self.place_label}"

    @property
    def place_label(self) -> str:
        if self.course_id:
            return f"the course {self.course.title}"
        if self.team_id:
            return f"the team {self.team.name} of {self.organization.name}"
        return f"the organisation {self.organization.name}"

    def state_at(self, now) -> str:
        """pending, expired, accepted or revoked."""
        if self.status == self.Status.PENDING and self.expires_at <= now:
            return "expired"
        return self.status
