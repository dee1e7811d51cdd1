"""API tokens: issuing (an expired token is replaced, never handed out again) and
revoking (deleting the row, so the token is unknown at once: a 401). Every revocation
is audited in the same transaction. A password change revokes every token of the user
(`tokens_revoke_for_password_change`, called by accounts.passwords on every path that
changes a password); the next sign-in issues a new one."""

from __future__ import annotations

from django.db import transaction
from rest_framework.authtoken.models import Token

from api_common.authentication import token_is_expired
from audit.models import AuditEvent
from audit.services import audit_record


def token_issue(*, user) -> Token:
    """The user's token, as DRF's ObtainAuthToken gives it (the same one on every
    sign-in), except that one past its TTL is deleted and a new one made."""
    with transaction.atomic():
        token, created = Token.objects.get_or_create(user=user)
        if not created and token_is_expired(token):
            token.delete()
            token = Token.objects.create(user=user)
    return token


def token_revoke(*, actor, token: Token) -> None:
    """The caller revokes their own token (`DELETE /api/auth/token/`)."""
    with transaction.atomic():
        deleted, _ = Token.objects.filter(pk=token.pk).delete()
        if deleted:
            _audit(actor, token.user_id, "self")


def tokens_revoke_for_user(*, actor, user) -> int:
    """Staff (or the command line, actor None) revoke every token of the user; how many
    there were. One event per token revoked; none when the user had none."""
    return _revoke_all(actor, user, "staff" if actor is not None else "command")


def tokens_revoke_for_password_change(*, user) -> int:
    """The user's password changed (a reset, a change, the admin, a command, code): a
    token obtained with the old password, perhaps by whoever knew it, stops working.
    Audited with the system as actor (the hook does not know who changed it)."""
    return _revoke_all(None, user, "password_change")


def _revoke_all(actor, user, how: str) -> int:
    with transaction.atomic():
        deleted, _ = Token.objects.filter(user=user).delete()
        for _n in range(deleted):
            _audit(actor, user.pk, how)
    return deleted


def _audit(actor, user_id: int, how: str) -> None:
    audit_record(
        actor=actor,
        action=AuditEvent.Action.TOKEN_REVOKE,
        target_type="auth.user",
        target_id=user_id,
        target_label=f"API token of user {user_id}",
        detail={"by": how},
    )
