"""The audit log: each instructor, manager or staff action records exactly one event,
with its actor, in the service's own transaction (a refused or failed action records
none, and a failed write of the event undoes the action); events are append-only and
the admin shows them read-only."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from api_common.service_errors import Conflict
from assess.models import Enrolment, Quiz
from assess.services.enrolments import enrolment_add, enrolment_remove, enrolment_self
from assess.services.extensions import extension_grant, extension_revoke
from assess.services.quizzes import (
    QuizSpec,
    SlotSpec,
    quiz_close,
    quiz_create,
    quiz_duplicate,
    quiz_publish,
    quiz_unpublish,
    quiz_update,
)
from assess.services.regrade import responses_regrade
from audit.models import AppendOnly, AuditEvent
from audit.services import audit_record
from certify.models import Certificate, Track
from certify.services.certificates import certificate_revoke
from orgs.models import Membership
from orgs.services import (
    member_add,
    organization_create,
    team_create,
    team_member_add,
    team_member_remove,
)
from tests.factories import CourseFactory, QuizFactory, UserFactory

pytestmark = pytest.mark.django_db


def spec(course, **kw) -> QuizSpec:
    base = {"title": "Week 1", "mode": "homework", "course_slug": course.slug}
    return QuizSpec(**{**base, "slots": [SlotSpec(["gb-gib"], 2)], **kw})


@pytest.fixture
def course(db):
    return CourseFactory(slug="ai-infra")


@pytest.fixture
def learner(db):
    return UserFactory(username="learner")


@pytest.fixture
def certificate(learner):
    track = Track.objects.create(
        slug="t", title="T", summary="s", rotation="r", order=1, mastery_threshold=0.95,
        exam=QuizFactory(),
    )  # fmt: skip
    return Certificate.objects.create(
        holder=learner, track=track, expires_at=timezone.now() + timedelta(days=365),
        evidence={},
    )  # fmt: skip


def test_each_action_records_exactly_one_event_with_its_actor(
    instructor, staff, learner, course, certificate
):
    manager = UserFactory(username="boss")
    org = organization_create(slug="acme", name="Acme")
    member_add(organization=org, user=manager, role=Membership.Role.MANAGER)
    member_add(organization=org, user=learner)
    team = team_create(organization=org, slug="oncall", name="On-call")
    holder = {}

    def q():  # the quiz as stored now (each step changes it)
        return Quiz.objects.get(pk=holder["q"].pk)

    def later(days):
        return timezone.now() + timedelta(days=days)

    steps = [
        # (what, actor, action, target_type)
        (lambda: holder.setdefault("q", quiz_create(user=instructor, spec=spec(course),
                                                    status=Quiz.Status.DRAFT)),
         instructor, "quiz.create", "assess.quiz"),
        (lambda: quiz_update(user=instructor, quiz=q(), spec=spec(course, title="W2")),
         instructor, "quiz.update", "assess.quiz"),
        (lambda: quiz_publish(user=instructor, quiz=q()),
         instructor, "quiz.publish", "assess.quiz"),
        (lambda: quiz_unpublish(user=instructor, quiz=q()),
         instructor, "quiz.unpublish", "assess.quiz"),
        (lambda: quiz_duplicate(user=staff, quiz=q()), staff, "quiz.duplicate",
         "assess.quiz"),
        (lambda: enrolment_add(actor=instructor, course=course, username="learner"),
         instructor, "enrolment.add", "curricula.course"),
        (lambda: quiz_update(user=instructor, quiz=q(),
                             spec=spec(course, closes_at=later(2))),
         instructor, "quiz.update", "assess.quiz"),
        (lambda: quiz_publish(user=instructor, quiz=q()),
         instructor, "quiz.publish", "assess.quiz"),
        (lambda: extension_grant(user=instructor, quiz=q(), learner=learner,
                                 closes_at=later(3)),
         instructor, "extension.grant", "assess.quiz"),
        (lambda: extension_revoke(user=instructor, quiz=q(), learner=learner),
         instructor, "extension.revoke", "assess.quiz"),
        (lambda: quiz_close(user=instructor, quiz=q()),
         instructor, "quiz.close", "assess.quiz"),
        (lambda: enrolment_remove(actor=instructor, course=course, username="learner"),
         instructor, "enrolment.remove", "curricula.course"),
        (lambda: certificate_revoke(actor=manager, certificate=certificate, reason="left"),
         manager, "certificate.revoke", "certify.certificate"),
        (lambda: team_member_add(team=team, user=learner, actor=manager),
         manager, "team_member.add", "orgs.team"),
        (lambda: team_member_remove(team=team, user=learner, actor=manager),
         manager, "team_member.remove", "orgs.team"),
        (lambda: responses_regrade(template_slug="gb-gib", actor=staff), staff,
         "responses.regrade", "problems.template"),
    ]  # fmt: skip
    for do, actor, action, target_type in steps:
        before = AuditEvent.objects.count()
        do()
        new = list(AuditEvent.objects.order_by("id")[before:])
        assert [(e.actor, e.action, e.target_type) for e in new] == [
            (actor, action, target_type)
        ], action
        assert new[0].actor_label == actor.username and new[0].target_id
    # What changes nothing records nothing: the same publish, enrolment or team member
    # again, a dry-run regrade; and a learner's own enrolment is no instructor action.
    before = AuditEvent.objects.count()
    quiz_close(user=instructor, quiz=q())
    enrolment_remove(actor=instructor, course=course, username="learner")
    team_member_remove(team=team, user=learner, actor=manager)
    certificate_revoke(actor=manager, certificate=certificate, reason="again")
    responses_regrade(template_slug="gb-gib", dry_run=True, actor=staff)
    enrolment_self(user=learner, course=course)
    assert AuditEvent.objects.count() == before


def test_a_refused_or_failed_action_records_none(instructor, course, monkeypatch):
    draft = quiz_create(user=instructor, spec=spec(course), status="draft")
    before = AuditEvent.objects.count()
    with pytest.raises(Conflict):  # a draft: refused inside the transaction
        quiz_close(user=instructor, quiz=draft)
    assert AuditEvent.objects.count() == before
    # The event is written in the action's transaction: if it cannot be, the action is
    # undone with it.
    quiz = quiz_create(user=instructor, spec=spec(course), status="draft")

    def broken(**kwargs):
        raise RuntimeError("audit store down")

    monkeypatch.setattr(AuditEvent.objects, "create", broken)
    with pytest.raises(RuntimeError):
        quiz_publish(user=instructor, quiz=quiz)
    assert Quiz.objects.get(pk=quiz.pk).status == Quiz.Status.DRAFT
    with pytest.raises(RuntimeError):
        enrolment_add(actor=instructor, course=course, username=UserFactory().username)
    assert not Enrolment.objects.exists()
    assert AuditEvent.objects.count() == before + 1  # the second quiz_create's only


def test_events_are_append_only_and_read_only_in_the_admin(staff, client):
    event = audit_record(actor=staff, action=AuditEvent.Action.TOKEN_REVOKE,
                         target_type="auth.user", target_id=1)  # fmt: skip
    event.target_label = "changed"
    with pytest.raises(AppendOnly):
        event.save()
    with pytest.raises(AppendOnly):
        event.delete()
    with pytest.raises(AppendOnly):
        AuditEvent.objects.all().delete()
    with pytest.raises(AppendOnly):
        AuditEvent.objects.update(action="x")
    staff.is_superuser = True
    staff.save()
    client.force_login(staff)
    base = "/admin/audit/auditevent/"
    listing = client.get(base)
    assert listing.status_code == 200 and "token.revoke" in listing.content.decode()
    page = client.get(f"{base}{event.pk}/change/")
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    assert client.get(f"{base}add/").status_code == 403
    assert client.post(f"{base}{event.pk}/change/", {"action": "x"}).status_code == 403
    assert client.get(f"{base}{event.pk}/delete/").status_code == 403
    assert AuditEvent.objects.get(pk=event.pk).target_label == ""
