"""Certificates against the database: issued through assess's real progress signal,
refused on a failed exam, expired and renewed, revoked, reminded before expiry; the
certification exam draws fresh variants; standings read in constant queries."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from api_common.service_errors import InvalidInput, NotPermitted
from assess.models import Attempt, Question
from assess.services.attempts import attempt_finish, attempt_start
from assess.services.fresh_variants import params_key
from assess.services.questions import question_draw, question_from_variant
from audit.models import AuditEvent
from capstone.models import Memo, MemoDecision
from capstone.services import memo_decide
from certify.models import Certificate
from certify.selectors import standing_for, standings, track_rules
from certify.services.certificates import (
    certificate_revoke,
    certificates_expire,
    certificates_issue_due,
    certificates_remind,
)
from certify.tasks import expire_and_remind
from orgs.models import Membership, Organization
from orgs.services import member_add, organization_create
from tests.assess.helpers import answer_question
from tests.certify.conftest import FLEET, SERVING, approve_memo, finished_exam
from tests.factories import QuizFactory, UserFactory

pytestmark = pytest.mark.django_db


def only_certificate(user, track) -> Certificate:
    return Certificate.objects.get(holder=user, track=track)


def issue_at(user, when) -> list[Certificate]:
    return certificates_issue_due(user_id=user.pk, now=when)


# --- issuance through the real trigger -----------------------------------------------


def test_finishing_a_passed_exam_issues_the_certificate(
    tracks, ready_learner, django_capture_on_commit_callbacks
):
    track = tracks[SERVING]
    learner = ready_learner(track, exam_score=None)  # mastery and memo, no exam yet
    assert not Certificate.objects.exists()
    attempt, created = attempt_start(quiz=track.exam, learner=learner)
    assert created
    for question in attempt.questions.all():
        answer_question(attempt, question)  # a drill included: both tracks' exams have one
    assert any(q.template_slug.startswith("drill-") for q in attempt.questions.all())
    assert not Certificate.objects.exists()  # answers alone certify nothing
    with django_capture_on_commit_callbacks(execute=True):
        finished = attempt_finish(attempt=attempt)
    assert finished.score >= track.exam.pass_mark

    certificate = only_certificate(learner, track)
    assert certificate.status == Certificate.Status.VALID
    assert certificate.expires_at - certificate.issued_at == timedelta(days=track.validity_days)
    evidence = certificate.evidence
    rules = track_rules([track])[track.pk]
    assert set(evidence["skills"]) == set(rules.skills)
    assert all(p >= track.mastery_threshold for p in evidence["skills"].values())
    assert evidence["exam"]["attempt"] == attempt.pk
    assert evidence["exam"]["score"] == pytest.approx(finished.score, abs=1e-4)
    assert evidence["exam"]["pass_mark"] == track.exam.pass_mark
    assert evidence["memo"] is not None and evidence["memo"]["score"] == 8.0
    assert evidence["lessons"] == [lesson.slug for lesson in rules.lessons]
    assert evidence["track"] == SERVING and evidence["mastery_threshold"] == 0.95

    cell = standing_for(user=learner, track=track)
    assert cell.standing.certified and cell.standing.until == certificate.expires_at
    # A second evaluation issues nothing more.
    assert certificates_issue_due(user_id=learner.pk) == []
    assert Certificate.objects.filter(holder=learner).count() == 1


def test_the_memo_approval_is_the_last_step_that_issues(
    tracks, ready_learner, django_capture_on_commit_callbacks
):
    track = tracks[SERVING]
    learner = ready_learner(track, memo=False)
    memo = approve_memo(learner, at=timezone.now()).memo
    # Reopen it: the approval goes through the real service and its signal.
    MemoDecision.objects.filter(memo=memo).delete()
    Memo.objects.filter(pk=memo.pk).update(status=Memo.Status.IN_REVIEW)
    assert certificates_issue_due(user_id=learner.pk) == []
    with django_capture_on_commit_callbacks(execute=True):
        memo_decide(
            instructor=UserFactory(is_staff=True),
            memo=Memo.objects.get(pk=memo.pk),
            decision=MemoDecision.Decision.APPROVE,
        )
    certificate = only_certificate(learner, track)
    assert certificate.evidence["memo"]["memo"] == memo.pk


def test_a_standing_reads_the_memo_approval_without_the_memos_texts(tracks, ready_learner):
    """A team's readiness reads every member's approvals: four figures each, not the
    version's Markdown (up to 60,000 characters), HTML and review."""
    learner = ready_learner(tracks[SERVING], memo=False)
    approval = approve_memo(learner, at=timezone.now())
    with CaptureQueriesContext(connection) as ctx:
        cell = standing_for(user=learner, track=tracks[SERVING])
    memo = cell.standing.readiness.memo
    assert (memo.memo_id, memo.version, memo.score, memo.max_score, memo.approved_at) == (
        approval.memo_id, 1, 8.0, 10.0, approval.created_at
    )  # fmt: skip
    read = " ".join(q["sql"] for q in ctx.captured_queries)
    assert '"capstone_memodecision"' in read
    for column in ("markdown", "html", "review"):
        assert f'"capstone_memoversion"."{column}"' not in read


def test_a_ready_learner_gets_exactly_the_tracks_they_meet(tracks, ready_learner):
    learner = ready_learner(tracks[FLEET])
    issued = certificates_issue_due(user_id=learner.pk)
    assert [c.track.slug for c in issued] == [FLEET]
    assert certificates_issue_due(user_id=learner.pk) == []


def test_the_memo_is_required_where_the_track_asks_for_it(tracks, ready_learner):
    learner = ready_learner(tracks[SERVING], memo=False)
    assert certificates_issue_due(user_id=learner.pk) == []
    reason = standing_for(user=learner, track=tracks[SERVING]).standing.reason
    assert "capstone memo not approved yet" in reason


def test_mastery_below_the_threshold_issues_nothing(tracks, ready_learner):
    learner = ready_learner(tracks[FLEET], mastery=0.9)
    assert certificates_issue_due(user_id=learner.pk) == []
    assert "below the threshold" in standing_for(user=learner, track=tracks[FLEET]).standing.reason


def test_a_failed_exam_issues_nothing_and_the_reason_names_it(tracks, ready_learner):
    track = tracks[FLEET]
    learner = ready_learner(track, exam_score=0.5)
    assert certificates_issue_due(user_id=learner.pk) == []
    assert not Certificate.objects.filter(holder=learner).exists()
    s = standing_for(user=learner, track=track).standing
    assert not s.certified and s.status == "in_progress"
    assert "not passed: 50%" in s.reason and "pass mark 80%" in s.reason
    assert "next attempt from" in s.reason  # the 7-day cooldown runs


# --- expiry and renewal ----------------------------------------------------------------


def test_an_expired_certificate_no_longer_certifies_and_renewal_needs_a_new_pass(
    tracks, ready_learner
):
    track = tracks[FLEET]
    now = timezone.now()
    then = now - timedelta(days=track.validity_days + 10)
    learner = ready_learner(track, at=then - timedelta(hours=1))
    [first] = issue_at(learner, then)
    assert first.expires_at == then + timedelta(days=track.validity_days)

    # Read by date, before the beat ran.
    s = standing_for(user=learner, track=track, now=now).standing
    assert not s.certified and s.status == "expired"
    assert f"expired on {first.expires_at.date().isoformat()}" in s.reason
    assert only_certificate(learner, track).status == Certificate.Status.VALID

    result = expire_and_remind.apply().get()
    assert result["expired"] == 1
    first.refresh_from_db()
    assert first.status == Certificate.Status.EXPIRED

    # The old pass is spent: mastery alone renews nothing.
    assert certificates_issue_due(user_id=learner.pk) == []
    assert "certification exam not taken" in standing_for(user=learner, track=track).standing.reason

    finished_exam(learner, track, score=0.9, finished_at=now - timedelta(minutes=5))
    [second] = certificates_issue_due(user_id=learner.pk)
    assert second.pk != first.pk and second.status == Certificate.Status.VALID
    assert second.evidence["exam"]["score"] == 0.9
    assert standing_for(user=learner, track=track).standing.certified
    assert Certificate.objects.filter(holder=learner, track=track).count() == 2


def test_a_renewal_passed_before_expiry_is_issued_when_the_old_one_expires(tracks, ready_learner):
    track = tracks[FLEET]
    now = timezone.now()
    then = now - timedelta(days=track.validity_days + 1)
    learner = ready_learner(track, at=then - timedelta(hours=1))
    [first] = issue_at(learner, then)
    # Within the reminder window, as the reminder asks: a new pass while still valid.
    finished_exam(learner, track, score=0.95, finished_at=first.expires_at - timedelta(days=5))
    assert issue_at(learner, first.expires_at - timedelta(days=4)) == []  # still valid

    assert certificates_expire(now=now) == 1
    first.refresh_from_db()
    assert first.status == Certificate.Status.EXPIRED
    renewed = Certificate.objects.get(holder=learner, track=track, status="valid")
    assert renewed.evidence["exam"]["score"] == 0.95
    assert standing_for(user=learner, track=track, now=now).standing.certified


def test_the_beat_expires_nothing_valid(tracks, ready_learner):
    learner = ready_learner(tracks[FLEET])
    certificates_issue_due(user_id=learner.pk)
    assert certificates_expire() == 0
    assert only_certificate(learner, tracks[FLEET]).status == Certificate.Status.VALID


# --- revocation --------------------------------------------------------------------------


@pytest.fixture
def org_people(tracks, ready_learner):
    holder = ready_learner(tracks[FLEET])
    [certificate] = certificates_issue_due(user_id=holder.pk)
    acme = organization_create(slug="acme", name="Acme")
    other = organization_create(slug="other", name="Other")
    manager, stranger = UserFactory(username="boss"), UserFactory(username="elsewhere")
    member_add(organization=acme, user=holder)
    member_add(organization=acme, user=manager, role=Membership.Role.MANAGER)
    member_add(organization=other, user=stranger, role=Membership.Role.MANAGER)
    return certificate, holder, manager, stranger


def test_a_manager_of_the_holders_organisation_revokes(tracks, org_people):
    certificate, holder, manager, _ = org_people
    revoked = certificate_revoke(actor=manager, certificate=certificate, reason=" Slept on call ")
    assert revoked.status == Certificate.Status.REVOKED
    assert revoked.revoked_by == manager and revoked.revoke_reason == "Slept on call"
    s = standing_for(user=holder, track=tracks[FLEET]).standing
    assert not s.certified and s.status == "revoked" and "Slept on call" in s.reason
    # Final: a repeat changes nothing, and the spent exam issues no new certificate.
    again = certificate_revoke(actor=manager, certificate=certificate, reason="other")
    assert again.revoke_reason == "Slept on call"
    assert certificates_issue_due(user_id=holder.pk) == []


def test_another_organisations_manager_may_not_revoke(org_people):
    certificate, holder, _, stranger = org_people
    with pytest.raises(NotPermitted):
        certificate_revoke(actor=stranger, certificate=certificate, reason="no")
    with pytest.raises(NotPermitted):
        certificate_revoke(actor=holder, certificate=certificate, reason="no")
    certificate.refresh_from_db()
    assert certificate.status == Certificate.Status.VALID


@pytest.mark.parametrize("reason", ["", "   ", None, "x" * 2001])
def test_a_revocation_needs_a_reason(org_people, reason):
    certificate, _, manager, _ = org_people
    with pytest.raises(InvalidInput) as caught:
        certificate_revoke(actor=manager, certificate=certificate, reason=reason)
    assert caught.value.field == "reason"
    certificate.refresh_from_db()
    assert certificate.status == Certificate.Status.VALID


# --- reminders ---------------------------------------------------------------------------


def verify_url(certificate_id: str) -> str:
    try:
        return reverse("certificate-verify-page", args=[certificate_id])
    except NoReverseMatch:
        pytest.skip("URL name certificate-verify-page is not defined yet (pages helper)")


def test_a_reminder_goes_once_within_the_window_with_the_verification_url(
    tracks, ready_learner, settings
):
    settings.SITE_URL = "https://burnin.example/"
    track = tracks[FLEET]
    now = timezone.now()
    soon = ready_learner(track, at=now - timedelta(days=track.validity_days - 9))
    [expiring] = issue_at(soon, now - timedelta(days=track.validity_days - 10))
    later = ready_learner(track)
    issue_at(later, now - timedelta(days=track.validity_days - track.reminder_days - 2))
    url = verify_url(expiring.pk)

    assert certificates_remind(now=now) == 1
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == [soon.email]
    assert f"https://burnin.example{url}" in message.body
    assert expiring.expires_at.date().isoformat() in message.body
    expiring.refresh_from_db()
    assert expiring.reminder_sent_at == now

    assert certificates_remind(now=now + timedelta(hours=1)) == 0  # none twice
    assert len(mail.outbox) == 1
    # The other enters its window three days later and is reminded then, once.
    assert certificates_remind(now=now + timedelta(days=3)) == 1
    assert [m.to for m in mail.outbox] == [[soon.email], [later.email]]


urlpatterns: list = []  # a deployment without the verification page, for the next test


def test_a_reminder_that_cannot_be_written_is_not_spent(tracks, ready_learner, settings):
    track = tracks[FLEET]
    now = timezone.now()
    holder = ready_learner(track, at=now - timedelta(days=track.validity_days - 9))
    [expiring] = issue_at(holder, now - timedelta(days=track.validity_days - 10))
    settings.ROOT_URLCONF = __name__
    with pytest.raises(NoReverseMatch):
        certificates_remind(now=now)
    expiring.refresh_from_db()
    assert expiring.reminder_sent_at is None  # the next run, once fixed, still sends it
    assert mail.outbox == []


def test_no_reminder_for_expired_or_revoked_certificates(tracks, ready_learner):
    track = tracks[FLEET]
    now = timezone.now()
    gone = ready_learner(track, at=now - timedelta(days=track.validity_days + 3))
    [expired] = issue_at(gone, now - timedelta(days=track.validity_days + 2))
    verify_url(expired.pk)
    pulled = ready_learner(track, at=now - timedelta(days=track.validity_days - 4))
    [revoked] = issue_at(pulled, now - timedelta(days=track.validity_days - 5))
    certificate_revoke(actor=UserFactory(is_staff=True), certificate=revoked, reason="Left")
    assert certificates_remind(now=now) == 0
    assert mail.outbox == []


# --- fresh variants ------------------------------------------------------------------------


def test_the_certification_exam_draws_no_variant_the_learner_practised(tracks, ready_learner):
    track = tracks[FLEET]
    learner = ready_learner(track, exam_score=None)
    exam_slots = list(track.exam.slots.order_by("order"))
    practice, _ = attempt_start(
        quiz=QuizFactory(slots=[slot.templates for slot in exam_slots]), learner=learner
    )
    practice_slot = practice.quiz.slots.order_by("order").first()
    # Practice that holds, for the next attempt ids, exactly the variants the exam would
    # draw first: without fresh draws the exam would repeat them.
    planted = []
    for attempt_id in range(practice.pk + 1, practice.pk + 11):
        for order, slot in enumerate(exam_slots, start=1):
            seed, variant = question_draw(
                attempt_id=attempt_id, slot=slot, order=order, variant_number=0
            )
            planted.append(
                question_from_variant(
                    attempt=practice,
                    slot=practice_slot,
                    order=1,
                    variant_number=len(planted) + 1,
                    seed=seed,
                    variant=variant,
                )
            )
    Question.objects.bulk_create(planted)
    seen = {
        (q.template_slug, params_key(q.params))
        for q in Question.objects.filter(attempt__learner=learner)
    }
    attempt_finish(attempt=practice)

    exam, _ = attempt_start(quiz=track.exam, learner=learner)
    assert practice.pk < exam.pk <= practice.pk + 10  # the planted ids cover it
    drawn = [(q.template_slug, params_key(q.params)) for q in exam.questions.all()]
    assert len(drawn) == len(exam_slots) == len(set(drawn))
    assert not set(drawn) & seen


# --- queries -------------------------------------------------------------------------------


def _people(n, tracks, ready_learner) -> list[int]:
    ids = []
    for i in range(n):
        track = list(tracks.values())[i % 3]
        user = ready_learner(track, exam_score=0.9 if i % 2 else 0.4)
        certificates_issue_due(user_id=user.pk)
        ids.append(user.pk)
    return ids


def test_standings_take_the_same_queries_for_2_or_8_people(tracks, ready_learner):
    all_tracks = list(tracks.values())
    few = _people(2, tracks, ready_learner)
    many = few + _people(6, tracks, ready_learner)
    assert Certificate.objects.exists() and Attempt.objects.exists()
    with CaptureQueriesContext(connection) as small:
        cells_few = standings(user_ids=few, tracks=all_tracks)
    with CaptureQueriesContext(connection) as large:
        cells_many = standings(user_ids=many, tracks=all_tracks)
    assert len(cells_few) == 6 and len(cells_many) == 24
    assert len(small) == len(large) <= 6
    assert any(c.standing.certified for c in cells_many.values())


def test_a_pass_from_before_the_revocation_does_not_reissue_at_once(tracks, org_people):
    """A holder who passed the exam again while certified, then is revoked, must pass a
    new exam after the revocation: otherwise the revocation lasts until their next
    progress signal."""
    certificate, holder, manager, _ = org_people
    track = tracks[FLEET]
    now = timezone.now()
    finished_exam(holder, track, score=1.0, finished_at=now)
    certificate_revoke(
        actor=manager, certificate=certificate, reason="Slept on call", now=now + timedelta(hours=1)
    )
    assert certificates_issue_due(user_id=holder.pk, now=now + timedelta(hours=2)) == []
    s = standing_for(user=holder, track=track, now=now + timedelta(hours=2)).standing
    assert not s.certified and s.status == "revoked"


def test_no_one_revokes_their_own_certificate(org_people):
    """Separation of duties: a holder who is also a manager of their organisation, or
    staff, still may not revoke their own certificate; another manager may."""
    certificate, holder, manager, _ = org_people
    member_add(
        organization=Organization.objects.get(slug="acme"),
        user=holder,
        role=Membership.Role.MANAGER,
    )
    holder.is_staff = True
    holder.save(update_fields=["is_staff"])
    with pytest.raises(NotPermitted, match="your own certificate"):
        certificate_revoke(actor=holder, certificate=certificate, reason="mine")
    certificate.refresh_from_db()
    assert certificate.status == Certificate.Status.VALID
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.CERTIFICATE_REVOKE).exists()
    certificate_revoke(actor=manager, certificate=certificate, reason="theirs")
    certificate.refresh_from_db()
    assert certificate.status == Certificate.Status.REVOKED
