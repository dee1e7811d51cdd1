"""Fixtures for the certification API tests: the tracks loaded from their data files, an
organisation with a manager, a team and members, and a helper that earns a certificate
the way a learner does (mastery, a passed exam, issuance)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from assess.models import Attempt, SkillMastery
from certify.models import Track
from certify.selectors import track_rules
from certify.services.certificates import certificates_issue_due
from orgs.services import member_add, organization_create, team_create, team_member_add
from tests.factories import UserFactory

FLEET = "fleet-bringup-health"  # no memo required: mastery and the exam certify


@pytest.fixture
def loaded_tracks(db) -> dict[str, Track]:
    call_command("load_curricula", verbosity=0)
    call_command("load_tracks", verbosity=0)
    return {t.slug: t for t in Track.objects.select_related("exam")}


@pytest.fixture
def fleet(loaded_tracks) -> Track:
    return loaded_tracks[FLEET]


def master(user, track: Track, p: float = 0.99) -> None:
    """Every skill of the track at P(mastered) = p."""
    for skill in track_rules([track])[track.pk].skills:
        SkillMastery.objects.update_or_create(learner=user, skill=skill, defaults={"p_mastery": p})


def exam_taken(user, track: Track, score: float, *, when=None) -> Attempt:
    """A finished certification attempt with `score`."""
    when = when or timezone.now() - timedelta(minutes=5)
    number = Attempt.objects.filter(learner=user, quiz=track.exam).count() + 1
    return Attempt.objects.create(
        quiz=track.exam,
        learner=user,
        number=number,
        status=Attempt.Status.FINISHED,
        started_at=when - timedelta(minutes=20),
        finished_at=when,
        score=score,
        points=score * 10,
    )


def certify(user, track: Track):
    """Earn the track's certificate (no memo: use a track that needs none)."""
    master(user, track)
    exam_taken(user, track, 0.9)
    [certificate] = certificates_issue_due(user_id=user.pk)
    return certificate


@pytest.fixture
def org(db):
    """Acme: `manager` manages it; `alice` and `bob` are members on team `sre`."""
    acme = organization_create(slug="acme", name="Acme")
    return acme


@pytest.fixture
def manager(org):
    user = UserFactory(username="manager", first_name="Mia", last_name="Manager")
    member_add(organization=org, user=user, role="manager")
    return user


@pytest.fixture
def alice(org):
    user = UserFactory(username="alice", first_name="Alice", last_name="Liddell")
    member_add(organization=org, user=user)
    return user


@pytest.fixture
def stranger(db):
    """Signed in, in no organisation."""
    return UserFactory(username="stranger")


@pytest.fixture
def team(org, alice, fleet):
    sre = team_create(organization=org, slug="sre", name="SRE", tracks=[fleet])
    team_member_add(team=sre, user=alice)
    return sre


@pytest.fixture
def other_team(db):
    """A team of another organisation, managed by someone else."""
    globex = organization_create(slug="globex", name="Globex")
    boss = UserFactory(username="globex-boss")
    member_add(organization=globex, user=boss, role="manager")
    other = team_create(organization=globex, slug="ops", name="Ops")
    team_member_add(team=other, user=UserFactory(username="gina"))
    return other
