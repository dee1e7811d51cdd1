"""A small organisation for the deprovisioning and own-data tests: a manager, an
engineer on its team holding a valid certificate of a track, with an API token each."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from assess.models import Quiz
from certify.models import Certificate, Track
from orgs.services import member_add, organization_create, team_create, team_member_add
from tests.factories import LessonFactory, QuizFactory, UserFactory


@dataclass
class Org:
    organization: object
    team: object
    track: Track
    manager: object
    engineer: object
    certificate: Certificate


def make_track(slug: str = "serving-oncall") -> Track:
    exam = QuizFactory(mode=Quiz.Mode.CERTIFICATION, slots=[["weights-memory"]])
    track = Track.objects.create(
        slug=slug,
        title="Serving on-call",
        summary="A track.",
        rotation="serving on-call",
        order=1,
        mastery_threshold=0.9,
        exam=exam,
    )
    track.lessons.add(LessonFactory(templates=["weights-memory"]))
    return track


def make_org() -> Org:
    organization = organization_create(slug="acme", name="Acme Corp")
    track = make_track()
    team = team_create(organization=organization, slug="sre", name="SRE", tracks=[track])
    manager = UserFactory(username="mona", first_name="Mona", last_name="Manager")
    engineer = UserFactory(username="eve", first_name="Eve", last_name="Engineer")
    member_add(organization=organization, user=manager, role="manager")
    team_member_add(team=team, user=engineer)
    certificate = Certificate.objects.create(
        holder=engineer,
        track=track,
        expires_at=timezone.now() + timedelta(days=300),
        evidence={"exam": {"score": 0.9}},
    )
    return Org(organization, team, track, manager, engineer, certificate)


def api_as(user) -> APIClient:
    api = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return api
