"""Writes for invitations: sending (one or a pasted list or a CSV, all or nothing),
resending, revoking and accepting. Every one is audited in its own transaction.

A link's token is 32 random bytes (URL-safe base64); the row keeps its SHA-256 only, so
a resend (a new token) makes the old link dead at once, and nothing stored opens one.
Mail goes after the rows commit: a list refused for one bad row writes nothing and mails
nobody; a mail that fails to go is reported on its row and the link can be sent again.

Accepting joins the account to the place (team, organisation, course) and closes the
invitation in one transaction, once: the row is locked, so two clicks of one link join
once and the second is told the link was used. Only the account whose address the link
was mailed to may accept it; since the link arrived at that address, accepting also
counts that address as confirmed (accounts: an account made by sign-up may then start
exams).
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass, replace

from allauth.account.models import EmailAddress
from django.conf import settings
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from accounts.services import sign_up_confirm
from api_common.service_errors import AssessError, Conflict, InvalidInput, NotPermitted
from assess.services.enrolments import enrolment_invited
from audit.models import AuditEvent
from audit.services import audit_record
from invitations import selectors
from invitations.models import Invitation
from invitations.places import Place
from invitations.rows import Row
from orgs.services import member_add, team_member_add

log = logging.getLogger(__name__)


class BulkRefused(InvalidInput):
    """Some rows are bad: nothing was written. `results` holds every row's result."""

    def __init__(self, results: list[RowResult]):
        bad = [r for r in results if r.bad]
        where = ", ".join(r.where for r in bad)
        super().__init__(
            f"Nothing was sent: {len(bad)} row{'s are' if len(bad) != 1 else ' is'} not "
            f"an address ({where}). Correct or remove "
            f"{'them' if len(bad) != 1 else 'it'} and send the list again."
        )
        self.results = results


class InvitationRefused(AssessError):
    """The link cannot be accepted: `reason` is unknown, expired, revoked or used."""

    def __init__(self, reason: str, message: str, invitation: Invitation | None = None):
        super().__init__(message)
        self.reason, self.invitation = reason, invitation


class WrongAccount(NotPermitted):
    """Signed in as an account the invitation was not mailed to."""

    def __init__(self, invitation: Invitation, user):
        super().__init__(
            f"This invitation was sent to {invitation.email}, and you are signed in as "
            f"{user.get_username()}, whose address is not that one. Sign out and open the "
            "link again, then sign in (or sign up) with the invited address."
        )
        self.invitation = invitation


@dataclass(frozen=True)
class RowResult:
    where: str  # "line 3", "CSV line 2"
    raw: str
    email: str | None
    outcome: str  # what happened, in words
    problem: str = ""
    invitation_id: int | None = None

    @property
    def bad(self) -> bool:
        return bool(self.problem)


def _new_token() -> str:
    return secrets.token_urlsafe(32)


def link_for(token: str, *, site_url: str) -> str:
    return site_url.rstrip("/") + reverse("invitation-accept", kwargs={"token": token})


def _check(actor, place: Place) -> None:
    """The view's selector already let the actor in; a service called from elsewhere
    (a command, a test) is held to the same rule."""
    if not selectors.may_invite(user=actor, place=place):
        raise NotPermitted("Only this place's managers or instructors invite to it.")


def _audit(actor, action: str, invitation: Invitation, **detail) -> None:
    audit_record(
        actor=actor,
        action=action,
        target=invitation,
        target_label=f"{invitation.email} to {invitation.place_label}",
        detail={"email": invitation.email, "place": invitation.target_key, **detail},
    )


def _issue(invitation: Invitation, now) -> str:
    """A new token for the row (the old one stops working), sent now."""
    token = _new_token()
    invitation.token_hash = selectors.token_hash(token)
    invitation.sent_at = now
    invitation.expires_at = now + settings.INVITATION_TTL
    return token


def _mail(invitation: Invitation, token: str, *, site_url: str) -> bool:
    inviter = invitation.invited_by
    context = {
        "invitation": invitation,
        "inviter": inviter.get_full_name() or inviter.get_username() if inviter else "Burn-in",
        "link": link_for(token, site_url=site_url),
        "expires_at": invitation.expires_at,
    }
    try:
        send_mail(
            subject=f"Burn-in: you are invited to {invitation.place_label}",
            message=render_to_string("invitations/email/invitation.txt", context),
            from_email=None,
            recipient_list=[invitation.email],
        )
    except Exception:  # noqa: BLE001 - any transport failure: reported on the row
        log.exception("invitation %s: mail failed", invitation.pk)  # never the address
        return False
    return True


def invitations_send(*, actor, place: Place, rows: list[Row], site_url: str) -> list[RowResult]:
    """Invite every address of `rows` to `place`: one result per row. Any bad row:
    BulkRefused, nothing written. An address already pending is sent a new link (the
    old one dies); one whose account is already there is skipped."""
    _check(actor, place)
    if any(r.bad for r in rows):
        raise BulkRefused(
            [RowResult(r.where, r.raw, r.email, "not sent", problem=r.problem) for r in rows]
        )
    emails = sorted({r.email for r in rows})
    accounts = selectors.accounts_by_address(emails)
    there = selectors.place_holds(place=place, user_ids=set(accounts.values()))
    results, outgoing, now = [], [], timezone.now()
    try:
        with transaction.atomic():
            pending = {
                i.email: i
                for i in Invitation.objects.select_for_update().filter(
                    target_key=place.key, status=Invitation.Status.PENDING, email__in=emails
                )
            }
            for row in rows:
                if row.repeat:
                    results.append(RowResult(row.where, row.raw, row.email, "listed above"))
                    continue
                if accounts.get(row.email) in there:
                    outcome = "already there: nothing sent"
                    results.append(RowResult(row.where, row.raw, row.email, outcome))
                    continue
                invitation = pending.get(row.email)
                if invitation is None:
                    invitation = Invitation(
                        email=row.email, target_key=place.key, invited_by=actor, **place.fields
                    )
                    token = _issue(invitation, now)
                    invitation.save()
                    _audit(actor, AuditEvent.Action.INVITATION_SEND, invitation)
                    outcome = "invited"
                else:
                    token = _issue(invitation, now)
                    invitation.sends += 1
                    invitation.invited_by = actor
                    invitation.save()
                    _audit(actor, AuditEvent.Action.INVITATION_RESEND, invitation)
                    outcome = "invited again: the earlier link no longer works"
                outgoing.append((len(results), invitation, token))
                results.append(
                    RowResult(row.where, row.raw, row.email, outcome, invitation_id=invitation.pk)
                )
    except IntegrityError:
        raise Conflict(
            "Someone invited some of these addresses at the same moment; send the list again."
        ) from None
    for index, invitation, token in outgoing:
        if not _mail(invitation, token, site_url=site_url):
            results[index] = replace(
                results[index], outcome=results[index].outcome + "; the mail failed: resend it"
            )
    return results


def invitation_resend(*, actor, invitation: Invitation, site_url: str) -> bool:
    """A new link for a pending (or expired) invitation; the old link dies. True if the
    mail went. Conflict for an accepted or revoked one."""
    _check(actor, Place.of(invitation))
    with transaction.atomic():
        invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
        if invitation.status != Invitation.Status.PENDING:
            raise Conflict(
                f"This invitation was {invitation.status}: invite the address again instead."
            )
        token = _issue(invitation, timezone.now())
        invitation.sends += 1
        invitation.save()
        _audit(actor, AuditEvent.Action.INVITATION_RESEND, invitation)
    return _mail(invitation, token, site_url=site_url)


def invitation_revoke(*, actor, invitation: Invitation) -> Invitation:
    """The link stops working. Conflict once accepted (remove the member instead)."""
    _check(actor, Place.of(invitation))
    with transaction.atomic():
        invitation = Invitation.objects.select_for_update().get(pk=invitation.pk)
        if invitation.status == Invitation.Status.REVOKED:
            return invitation
        if invitation.status == Invitation.Status.ACCEPTED:
            raise Conflict("This invitation was accepted already: nothing to revoke.")
        invitation.status = Invitation.Status.REVOKED
        invitation.closed_at = timezone.now()
        invitation.save(update_fields=["status", "closed_at"])
        _audit(actor, AuditEvent.Action.INVITATION_REVOKE, invitation)
    return invitation


REFUSALS = {
    "unknown": "This invitation link is not valid: check that the whole link was copied.",
    "expired": "This invitation has expired. Ask whoever invited you to send it again.",
    "revoked": "This invitation was withdrawn by whoever sent it.",
    "accepted": "This invitation was used already: each link works once.",
}


def invitation_check(invitation: Invitation | None, *, now=None) -> Invitation:
    """InvitationRefused unless the invitation may be accepted now."""
    if invitation is None:
        raise InvitationRefused("unknown", REFUSALS["unknown"])
    state = invitation.state_at(now or timezone.now())
    if state != Invitation.Status.PENDING:
        raise InvitationRefused(state, REFUSALS[state], invitation)
    return invitation


def _join(invitation: Invitation, user) -> None:
    inviter = invitation.invited_by
    if invitation.course_id:
        enrolment_invited(user=user, course=invitation.course, inviter=inviter)
    elif invitation.team_id:
        team_member_add(team=invitation.team, user=user, actor=inviter)
    else:
        member_add(organization=invitation.organization, user=user)


def invitation_accept(*, user, token: str) -> Invitation:
    """The signed-in `user` accepts the invitation the token opens: joined, the
    invitation closed, its address confirmed for the account. InvitationRefused (nothing
    written) for an unknown, expired, revoked or used link; WrongAccount when the user
    does not have the invited address."""
    with transaction.atomic():
        found = selectors.invitation_by_token(token)
        if found is not None:
            found = (
                # of=self: PostgreSQL locks no row on the nullable side of an outer
                # join (the team, the course), and only this row needs the lock.
                Invitation.objects.select_for_update(of=("self",))
                .select_related("organization", "team", "course", "invited_by")
                .get(pk=found.pk)
            )
        invitation = invitation_check(found)
        address = selectors.address_of(user=user, email=invitation.email)
        if address is None:
            raise WrongAccount(invitation, user)
        _join(invitation, user)
        if isinstance(address, EmailAddress) and not address.verified:
            address.verified = True
            address.save(update_fields=["verified"])
        sign_up_confirm(user=user)  # the link reached the address: it is confirmed
        invitation.status = Invitation.Status.ACCEPTED
        invitation.accepted_by = user
        invitation.closed_at = timezone.now()
        invitation.save(update_fields=["status", "accepted_by", "closed_at"])
        _audit(user, AuditEvent.Action.INVITATION_ACCEPT, invitation)
    return invitation
