"""The one writer of the audit log. Services call it inside their own transaction,
after the change, so an action that fails (and rolls back) leaves no event, and one
that commits always leaves exactly one. No signals: the caller says what happened."""

from __future__ import annotations

from django.db import models

from audit.models import AuditEvent


def audit_record(
    *,
    actor,
    action: str,
    target: models.Model | None = None,
    target_type: str = "",
    target_id: object = "",
    target_label: str = "",
    detail: dict | None = None,
) -> AuditEvent:
    """Append one event. `target` (a model instance) fills type, id and label; without
    one (a regrade targets a template slug) give them. `actor` None is the system."""
    if target is not None:
        target_type = target_type or target._meta.label_lower
        target_id = target_id or target.pk
        target_label = target_label or str(target)
    actor_id = getattr(actor, "pk", None)
    return AuditEvent.objects.create(
        actor_id=actor_id,
        actor_label=actor.get_username() if actor_id is not None else "",
        action=action,
        target_type=target_type,
        target_id=str(target_id),
        target_label=str(target_label)[:200],
        detail=detail or {},
    )
