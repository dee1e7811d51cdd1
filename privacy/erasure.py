"""Deleting an account: anonymised in place, never a row deleted from under the data.

Attempts, answers and certificates cascade from the user, and an instructor's memo
decisions protect their author, so deleting the row would either take every answer out
of the item statistics and calibration or fail. Instead, in one transaction:

- the user row keeps only a random username (`deleted-…`): no names, no email, an
  unusable password, not active, no staff flags, groups or permissions;
- allauth's email addresses and the company sign-ins (social accounts, their tokens)
  are deleted, API tokens revoked, sessions ended; LMS (LTI) user records lose their
  names, address and picture and are unlinked, so a later launch makes a new account;
- memberships of organisations and teams and instructor roles end (the readiness
  matrices stop listing the person);
- certificates become revoked history (reason: the holder deleted the account), their
  evidence snapshot cleared; their public page names no one;
- memo text (each version's Markdown and HTML, its review) is removed; scores stay; a
  review still queued is marked failed (one already running when the account is
  deleted may still write back a review of the old text: the review runs outside any
  lock, capstone.services);
- attempts, answers, mastery and enrolments stay, under the anonymous person, so course
  gradebooks and item analysis keep counting them without a name.

The audit log keeps its rows (it is append-only: who did what stays on record under
the username they had then) and gains one `account.anonymise` event.
"""

from __future__ import annotations

import secrets

from allauth.account.models import EmailAddress
from allauth.socialaccount.models import SocialAccount
from django.db import transaction
from django.utils import timezone

from accounts.models import Erasure
from accounts.services.sessions import sessions_end
from accounts.tokens import tokens_revoke_for_user
from assess.models import CourseRole
from audit.models import AuditEvent
from audit.services import audit_record
from capstone.models import MemoVersion
from certify.models import Certificate
from orgs.models import Membership, TeamMember

REVOKE_REASON = "The holder deleted their account."


def anonymous_username() -> str:
    return f"deleted-{secrets.token_hex(8)}"


def account_anonymise(*, actor, user) -> Erasure:
    """Delete `user`'s account as described above. `actor` is the user themselves (the
    "Delete my account" page, after their password or a fresh single sign-on) or staff
    (the admin action). Idempotent: an account erased before is returned as it is."""
    existing = Erasure.objects.filter(user=user).first()
    if existing is not None:
        return existing
    by_staff = actor is not None and actor.pk != user.pk
    now = timezone.now()
    with transaction.atomic():
        counts = {
            "tokens_revoked": tokens_revoke_for_user(
                actor=actor if by_staff else None, user=user, how="account_deleted"
            ),
            "sessions_ended": sessions_end(user=user),
        }
        EmailAddress.objects.filter(user=user).delete()
        counts["sign_ons_removed"] = SocialAccount.objects.filter(user=user).delete()[0]
        _lti_users_forget(user)
        TeamMember.objects.filter(user=user).delete()
        Membership.objects.filter(user=user).delete()
        CourseRole.objects.filter(user=user).delete()
        counts["certificates_revoked"] = (
            Certificate.objects.filter(holder=user)
            .exclude(status=Certificate.Status.REVOKED)
            .update(
                status=Certificate.Status.REVOKED,
                revoked_at=now,
                revoked_by=None,
                revoke_reason=REVOKE_REASON,
            )
        )
        Certificate.objects.filter(holder=user).update(evidence={})
        versions = MemoVersion.objects.filter(memo__capstone__learner=user)
        # A review still waiting is marked failed, so no page shows it pending and the
        # stuck-review beat does not queue it again; a delivery already in the broker
        # reviews the empty text, which quotes nothing.
        versions.filter(
            review_status__in=[MemoVersion.ReviewStatus.QUEUED, MemoVersion.ReviewStatus.RUNNING]
        ).update(review_status=MemoVersion.ReviewStatus.FAILED)
        counts["memo_versions_cleared"] = versions.update(
            markdown="", html="", review=None, review_error=""
        )

        user.username = anonymous_username()
        user.first_name = user.last_name = user.email = ""
        user.set_unusable_password()
        user.is_active = user.is_staff = user.is_superuser = False
        user.last_login = None
        user.save()
        user.groups.clear()
        user.user_permissions.clear()
        erasure = Erasure.objects.create(user=user, erased_at=now, by_staff=by_staff)
        # After the rename: an erasure by its owner is logged under the new name only.
        audit_record(
            actor=actor if by_staff else user,
            action=AuditEvent.Action.ACCOUNT_ANONYMISE,
            target=user,
            detail={"by": "staff" if by_staff else "self", **counts},
        )
    return erasure


def _lti_users_forget(user) -> None:
    from lti_tool.models import LtiUser

    LtiUser.objects.filter(auth_user=user).update(
        given_name="", family_name="", name="", email="", picture_url="", auth_user=None
    )
