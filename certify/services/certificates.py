"""Issuing, revoking, expiring certificates and reminding holders before expiry.

Issuance is automatic: whenever assess records progress for a learner (after commit),
every track is evaluated and a certificate issued for each whose requirements are all
met and which the learner holds no valid certificate of. The database allows one valid
certificate per holder and track, so two completions racing each other issue one.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from api_common.service_errors import InvalidInput, NotPermitted
from assess.selectors.duties import Judgement, refuse_own_work
from audit.models import AuditEvent
from audit.services import audit_record
from certify.models import Certificate, Track
from certify.requirements import Readiness
from certify.selectors import standings, tracks_all
from certify.services.exam_decisions import exam_decisions_record
from orgs.selectors import user_manages

log = logging.getLogger(__name__)


def evidence_snapshot(readiness: Readiness) -> dict:
    """What the certificate stands on, frozen: the skills and their estimates, the exam
    attempt and score, the approved memo. Private: shown to the holder and managers."""
    exam = readiness.passed_exam
    memo = readiness.memo
    return {
        "track": readiness.track.slug,
        "mastery_threshold": readiness.track.threshold,
        "skills": {skill: round(p, 4) for skill, p, _ in readiness.skills},
        "lessons": [lesson.slug for lesson in readiness.track.lessons],
        "exam": {
            "attempt": exam.attempt_id,
            "score": round(exam.score, 4),
            "pass_mark": readiness.track.pass_mark,
            "rule": exam.rule or "raw-score",
            "ability": exam.theta,
            "se": exam.se,
            "cut": exam.cut,
            "finished_at": exam.finished_at.isoformat(),
        }
        if exam
        else None,
        "memo": {
            "memo": memo.memo_id,
            "version": memo.version,
            "score": memo.score,
            "max_score": memo.max_score,
            "approved_at": memo.approved_at.isoformat(),
        }
        if memo
        else None,
    }


def _issue(
    *, user_id: int, track: Track, readiness: Readiness, now: datetime
) -> tuple[Certificate, bool]:
    """(certificate, created). Created tells this call's insert from a racing one's:
    comparing issued_at with `now` cannot, when both callers were handed the same now."""
    # A valid certificate past its date is expired first, so it cannot block a renewal.
    Certificate.objects.filter(
        holder_id=user_id, track=track, status=Certificate.Status.VALID, expires_at__lte=now
    ).update(status=Certificate.Status.EXPIRED)
    try:
        with transaction.atomic():
            certificate = Certificate.objects.create(
                holder_id=user_id,
                track=track,
                issued_at=now,
                expires_at=now + timedelta(days=track.validity_days),
                evidence=evidence_snapshot(readiness),
            )
        return certificate, True
    except IntegrityError:
        # A racing completion issued it first: that one stands.
        winner = Certificate.objects.get(
            holder_id=user_id, track=track, status=Certificate.Status.VALID
        )
        return winner, False


def certificates_issue_due(*, user_id: int, now: datetime | None = None) -> list[Certificate]:
    """Issue every certificate the learner has earned and does not hold; returns the new
    ones. Safe to call any number of times and concurrently."""
    now = now or timezone.now()
    exam_decisions_record(user_id=user_id)  # each finished exam decided once, first
    tracks = list(tracks_all())
    issued = []
    for (_, _track_id), cell in standings(user_ids=[user_id], tracks=tracks, now=now).items():
        if cell.standing.certified or not cell.standing.readiness.met:
            continue
        certificate, created = _issue(
            user_id=user_id, track=cell.track, readiness=cell.standing.readiness, now=now
        )
        if created:
            issued.append(certificate)
            log.info("certificate %s issued: %s for user %s", certificate.pk, cell.track, user_id)
    return issued


def certificate_revoker_check(*, actor, certificate: Certificate) -> None:
    """Raises NotPermitted unless the actor may revoke: a manager of the holder's
    organisation or staff, and never the holder (assess.selectors.duties)."""
    if not (actor.is_staff or user_manages(manager=actor, user_id=certificate.holder_id)):
        raise NotPermitted("Only a manager of the holder's organisation revokes a certificate.")
    refuse_own_work(
        actor=actor, subject_id=certificate.holder_id, judgement=Judgement.CERTIFICATE_REVOCATION
    )


def certificate_revoke(
    *, actor, certificate: Certificate, reason: str, now: datetime | None = None
) -> Certificate:
    """A manager of the holder's organisation (or staff), never the holder, revokes,
    with a reason. Final: revoking again changes nothing but is not an error."""
    certificate_revoker_check(actor=actor, certificate=certificate)
    reason = (reason or "").strip()
    if not reason:
        raise InvalidInput("Give the reason for the revocation.", field="reason")
    if len(reason) > 2000:
        raise InvalidInput("Keep the reason under 2,000 characters.", field="reason")
    now = now or timezone.now()
    with transaction.atomic():
        locked = Certificate.objects.select_for_update().get(pk=certificate.pk)
        if locked.status != Certificate.Status.REVOKED:
            locked.status = Certificate.Status.REVOKED
            locked.revoked_at = now
            locked.revoked_by = actor
            locked.revoke_reason = reason
            locked.save(update_fields=["status", "revoked_at", "revoked_by", "revoke_reason"])
            audit_record(
                actor=actor,
                action=AuditEvent.Action.CERTIFICATE_REVOKE,
                target=locked,
                detail={"holder_id": locked.holder_id, "reason": reason},
            )
    return locked


def certificates_expire(*, now: datetime | None = None) -> int:
    """Mark valid certificates past their expiry as expired; returns how many.

    Then issue the renewals that became due: a holder who passed a new exam while the old
    certificate was still valid (as the reminder asks) records no progress at expiry, so
    without this they would wait for some unrelated progress to be certified again."""
    now = now or timezone.now()
    due = Certificate.objects.filter(status=Certificate.Status.VALID, expires_at__lte=now)
    holders = sorted(set(due.values_list("holder_id", flat=True)))
    expired = due.update(status=Certificate.Status.EXPIRED)
    for holder_id in holders:
        certificates_issue_due(user_id=holder_id, now=now)
    return expired


def _reminder_text(certificate: Certificate) -> str:
    url = settings.SITE_URL.rstrip("/") + reverse("certificate-verify-page", args=[certificate.pk])
    return (
        f"Your Burn-in certificate “{certificate.track.title}” expires on "
        f"{certificate.expires_at.date().isoformat()}.\n\n"
        "To stay on the rotation, renew it before then: keep the track's skills mastered "
        "and pass its certification exam again.\n\n"
        f"Certificate: {url}\n"
    )


def certificates_remind(*, now: datetime | None = None) -> int:
    """Mail each holder whose valid certificate expires within its track's reminder
    window, once per certificate (stamped before sending: a crash after the stamp loses
    a reminder rather than sending it twice). Returns how many were sent."""
    now = now or timezone.now()
    sent = 0
    due = (
        Certificate.objects.filter(
            status=Certificate.Status.VALID, reminder_sent_at__isnull=True, expires_at__gt=now
        )
        .select_related("track", "holder")
        .order_by("expires_at")
    )
    for certificate in due:
        if certificate.expires_at - now > timedelta(days=certificate.track.reminder_days):
            continue
        # The text (and its URL) before the stamp: a URL that does not resolve is a
        # deployment error, which must not cost the holder their reminder.
        message = _reminder_text(certificate)
        stamped = Certificate.objects.filter(
            pk=certificate.pk, reminder_sent_at__isnull=True
        ).update(reminder_sent_at=now)
        if not stamped or not certificate.holder.email:
            continue
        send_mail(
            subject=f"Your certificate “{certificate.track.title}” expires soon",
            message=message,
            from_email=None,
            recipient_list=[certificate.holder.email],
        )
        sent += 1
    return sent
