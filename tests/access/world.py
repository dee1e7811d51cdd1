"""The one world the access matrix asks about: every object a URL can point at, owned
by `learner`, and the six other roles who must (or may) not reach it.

Built once per module inside an outer transaction (tests/access/conftest.py), so each
test's own transaction is a savepoint and a write a cell lets through is rolled back
before the next cell runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import yaml
from django.conf import settings
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from assess.models import Extension, Quiz
from assess.services.attempts import attempt_start
from authoring.services import create_unchecked
from capstone.services import CAPSTONE_COURSE, memo_submit
from certify.models import Certificate, Track
from hardware_db.models import Accelerator, Link, ModelArchitecture, Server
from invitations.models import Invitation
from invitations.places import Place
from invitations.rows import rows_from_text
from invitations.services import invitations_send
from orgs.services import member_add, organization_create, team_create, team_member_add
from orgs.sso import ProviderSettings, identity_provider_save
from tests.factories import (
    CourseFactory,
    CourseRoleFactory,
    EnrolmentFactory,
    LessonFactory,
    ModuleFactory,
    QuizFactory,
    UserFactory,
)

ROLES = (
    "anonymous",
    "learner",  # owns the attempt, memo, certificate; enrolled; member of the team
    "other_learner",  # enrolled in the same course, with an attempt of their own
    "not_enrolled",  # signed in, in no course
    "other_instructor",  # teaches another course
    "other_manager",  # manages another organisation
    "staff",
)


AUTHORED = Path(__file__).parents[1] / "problems" / "authored" / "data" / "team-kv-budget.yaml"


@dataclass
class World:
    users: dict
    course: object  # the learner's course (also the capstone's)
    other_course: object  # taught by other_instructor
    lesson: object
    quiz: Quiz  # a published practice quiz of `course`
    draft: Quiz  # a draft of `course`: its instructors' and staff's alone
    attempt: object  # the learner's, on `quiz`
    question: object  # of `attempt`
    memo: object  # the learner's capstone memo
    track: Track
    certificate: Certificate  # the learner's
    team: object  # of the learner's organisation; other_manager manages another
    organization: object  # the learner's, with a registered identity provider
    invitation: object  # pending, to the learner's team, sent by staff
    authored: object  # a draft authored template of `course` (version 1), made by staff
    hardware: dict  # kind ("accelerator", "link", ...) -> a slug of the loaded catalog
    sessions: dict  # role -> a signed-in session key, made once (cheaper than a login a cell)


def build_world() -> World:
    users = {
        role: UserFactory(username=f"access-{role}".replace("_", "-"), is_staff=role == "staff")
        for role in ROLES
        if role != "anonymous"
    }
    learner, other = users["learner"], users["other_learner"]
    course = CourseFactory(slug=CAPSTONE_COURSE, title="Foundations")
    other_course = CourseFactory(slug="access-other-course")
    CourseRoleFactory(user=users["other_instructor"], course=other_course)
    module = ModuleFactory(course=course)
    lesson = LessonFactory(module=module, slug="access-lesson", templates=["gb-gib"])
    for user in (learner, other):
        EnrolmentFactory(user=user, course=course)

    quiz = QuizFactory(
        course=course, slots=[["gb-gib"]], closes_at=timezone.now() + timedelta(days=7)
    )
    quiz.lessons.add(lesson)
    draft = QuizFactory(course=course, status=Quiz.Status.DRAFT, slots=[["gb-gib"]])
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    attempt_start(quiz=quiz, learner=other)
    Extension.objects.create(
        quiz=quiz,
        learner=learner,
        closes_at=quiz.closes_at + timedelta(days=1),
        granted_by=users["staff"],
    )
    memo = memo_submit(learner=learner, markdown="# Plan\n\nEight GPUs suffice.").memo

    exam = QuizFactory(course=course, mode=Quiz.Mode.CERTIFICATION, slots=[["gb-gib"]])
    track = Track.objects.create(
        slug="access-track",
        title="Access track",
        summary="A track.",
        rotation="on-call",
        order=1,
        mastery_threshold=0.9,
        exam=exam,
    )
    track.lessons.add(lesson)
    certificate = Certificate.objects.create(
        holder=learner, track=track, expires_at=timezone.now() + timedelta(days=365), evidence={}
    )

    org = organization_create(slug="access-org", name="Access Org")
    member_add(organization=org, user=learner)
    team = team_create(organization=org, slug="sre", name="SRE", tracks=[track])
    team_member_add(team=team, user=learner)
    identity_provider_save(
        actor=None,
        organization=org,
        values=ProviderSettings(
            issuer="https://idp.access.example",
            client_id="access-client",
            client_secret="access-secret",
            domains=("access.example",),
            required=False,
        ),
    )
    [sent] = invitations_send(
        actor=users["staff"],
        place=Place(organization=org, team=team),
        rows=rows_from_text("invitee@access.example"),
        site_url="http://testserver/",
    )
    elsewhere = organization_create(slug="access-elsewhere", name="Elsewhere")
    member_add(organization=elsewhere, user=users["other_manager"], role="manager")
    team_create(organization=elsewhere, slug="ops", name="Ops")

    call_command("load_hardware", verbosity=0)  # the real catalog: 0.1 s
    hardware = {
        kind: model.objects.order_by("slug").values_list("slug", flat=True).first()
        for kind, model in (
            ("accelerator", Accelerator),
            ("link", Link),
            ("server", Server),
            ("model", ModelArchitecture),
        )
    }
    sessions = {}
    for role, user in users.items():
        client = Client()
        client.force_login(user)
        sessions[role] = client.cookies[settings.SESSION_COOKIE_NAME].value

    return World(
        users=users,
        course=course,
        other_course=other_course,
        lesson=lesson,
        quiz=quiz,
        draft=draft,
        attempt=attempt,
        question=attempt.questions.first(),
        memo=memo,
        track=track,
        certificate=certificate,
        team=team,
        organization=org,
        invitation=Invitation.objects.get(pk=sent.invitation_id),
        authored=create_unchecked(
            course=course, data=yaml.safe_load(AUTHORED.read_text()), user=users["staff"]
        ),
        hardware=hardware,
        sessions=sessions,
    )
