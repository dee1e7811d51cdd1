"""Staff deactivate an account (someone left, an account is compromised) and reactivate it.

Deactivation is Django's `is_active = False`, which every road in already reads: the
sign-in page and re-authentication (allauth shows its inactive page), the admin's login
and POST /api/auth/token/ (the backend's user_can_authenticate) and token
authentication (api_common.authentication: a 401). On top of that, in one transaction, the
account's API tokens are revoked (deleted: unknown at once, each audited as staff's
revocation) and its sessions ended, so nothing it held keeps working. The account's
data stays: reactivating gives it back, with a new sign-in and a new token.
"""

from __future__ import annotations

from django.db import transaction

from accounts.services.sessions import sessions_end
from accounts.tokens import tokens_revoke_for_user
from api_common.service_errors import InvalidInput
from audit.models import AuditEvent
from audit.services import audit_record


def account_deactivate(*, actor, user) -> bool:
    """Refuse the account every sign-in, revoke its tokens, end its sessions. False if
    it was inactive already (nothing written). Nobody deactivates themselves (staff
    would lock themselves out of the admin mid-action)."""
    if actor is not None and actor.pk == user.pk:
        raise InvalidInput("You cannot deactivate your own account.")
    with transaction.atomic():
        changed = type(user).objects.filter(pk=user.pk, is_active=True).update(is_active=False)
        if not changed:
            return False
        user.is_active = False
        tokens = tokens_revoke_for_user(actor=actor, user=user, how="deactivation")
        sessions = sessions_end(user=user)
        audit_record(
            actor=actor,
            action=AuditEvent.Action.ACCOUNT_DEACTIVATE,
            target=user,
            detail={"tokens_revoked": tokens, "sessions_ended": sessions},
        )
    return True


def account_reactivate(*, actor, user) -> bool:
    """Let a deactivated account sign in again. False if it was active (nothing written)."""
    with transaction.atomic():
        changed = type(user).objects.filter(pk=user.pk, is_active=False).update(is_active=True)
        if changed:
            user.is_active = True
            audit_record(actor=actor, action=AuditEvent.Action.ACCOUNT_REACTIVATE, target=user)
    return bool(changed)
