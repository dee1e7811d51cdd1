"""The audit log: who (an instructor, a manager, staff, or the system) did what to
which object, and when. Append-only: rows are written by `audit.services.audit_record`
inside the service's own transaction and never changed or deleted by the application
(save refuses an update, delete refuses always; the admin is read-only)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from config.constraints import choice_check


class AppendOnly(Exception):
    """An audit event was about to be changed or deleted."""


class AuditQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise AppendOnly("Audit events are never changed.")

    def delete(self):
        raise AppendOnly("Audit events are never deleted.")


class AuditAction(models.TextChoices):
    QUIZ_CREATE = "quiz.create"
    QUIZ_UPDATE = "quiz.update"
    QUIZ_DUPLICATE = "quiz.duplicate"
    QUIZ_PUBLISH = "quiz.publish"
    QUIZ_UNPUBLISH = "quiz.unpublish"
    QUIZ_CLOSE = "quiz.close"
    REGRADE = "responses.regrade"
    EXTENSION_GRANT = "extension.grant"
    EXTENSION_REVOKE = "extension.revoke"
    CERTIFICATE_REVOKE = "certificate.revoke"
    ENROLMENT_ADD = "enrolment.add"
    ENROLMENT_REMOVE = "enrolment.remove"
    TEAM_MEMBER_ADD = "team_member.add"
    TEAM_MEMBER_REMOVE = "team_member.remove"
    TOKEN_REVOKE = "token.revoke"  # noqa: S105 - an action code, not a secret
    IDENTITY_PROVIDER_SAVE = "identity_provider.save"
    INVITATION_SEND = "invitation.send"
    INVITATION_RESEND = "invitation.resend"
    INVITATION_REVOKE = "invitation.revoke"
    INVITATION_ACCEPT = "invitation.accept"
    MEMBER_REMOVE = "membership.remove"
    ACCOUNT_DEACTIVATE = "account.deactivate"
    ACCOUNT_REACTIVATE = "account.reactivate"
    ACCOUNT_EXPORT = "account.export"
    ACCOUNT_ANONYMISE = "account.anonymise"
    STANDARD_SET = "standard.set"


class AuditEvent(models.Model):
    Action = AuditAction

    # SET_NULL: deleting a user keeps what they did; actor_label still says who.
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Empty for the system (a command, a task) or a deleted user.",
    )
    actor_label = models.CharField(max_length=150, blank=True)
    action = models.CharField(max_length=40, choices=Action.choices)
    target_type = models.CharField(max_length=60)
    target_id = models.CharField(max_length=64)
    target_label = models.CharField(max_length=200, blank=True)
    detail = models.JSONField(default=dict, blank=True)
    at = models.DateTimeField(default=timezone.now, db_index=True)

    objects = AuditQuerySet.as_manager()

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["target_type", "target_id"])]
        constraints = [choice_check("action", AuditAction, name="audit_event_action_valid")]

    def __str__(self) -> str:
        who = self.actor_label or "system"
        return f"{self.at:%Y-%m-%d %H:%M} {who} {self.action} {self.target_label}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise AppendOnly("Audit events are never changed.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnly("Audit events are never deleted.")
