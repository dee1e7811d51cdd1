"""Fixtures for certification: the real tracks (loaded from the files after the
curricula) and a factory of learners who meet a track's requirements.

`tracks` maps slug -> Track. `ready_learner(track, ...)` returns a user with every skill
of the track at P(mastered) 0.99, a passed exam attempt on the track's exam (unless
`exam_score=None`) and, where the track asks for one, an approved capstone memo.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from assess.models import Attempt, SkillMastery
from capstone.models import Capstone, Memo, MemoDecision, MemoVersion
from certify.selectors import track_rules, tracks_all
from tests.factories import CourseFactory, UserFactory

FLEET = "fleet-bringup-health"  # no memo
SERVING = "inference-serving-oncall"  # memo required
TRAINING = "training-cluster-oncall"


@pytest.fixture
def tracks(db) -> dict:
    call_command("load_curricula", verbosity=0)
    call_command("load_tracks", verbosity=0)
    return {t.slug: t for t in tracks_all()}


def set_mastery(user, track, p: float = 0.99) -> list[str]:
    """Every skill of the track at p for the user; returns the skills."""
    skills = list(track_rules([track])[track.pk].skills)
    for skill in skills:
        SkillMastery.objects.update_or_create(
            learner=user, skill=skill, defaults={"p_mastery": p, "responses": 10}
        )
    return skills


def finished_exam(user, track, *, score: float, finished_at: datetime) -> Attempt:
    """A closed attempt on the track's exam with this score (no questions: the
    selectors read the attempt row only)."""
    number = Attempt.objects.filter(quiz=track.exam, learner=user).count() + 1
    return Attempt.objects.create(
        quiz=track.exam,
        learner=user,
        number=number,
        status=Attempt.Status.FINISHED,
        started_at=finished_at - timedelta(minutes=30),
        deadline=finished_at + timedelta(minutes=30),
        finished_at=finished_at,
        score=score,
        points=score * 10,
        mastery_applied_at=finished_at,
    )


def approve_memo(user, *, at: datetime) -> MemoDecision:
    capstone = Capstone.objects.create(learner=user, course=CourseFactory(), seed=7)
    memo = Memo.objects.create(capstone=capstone, status=Memo.Status.APPROVED, created_at=at)
    version = MemoVersion.objects.create(
        memo=memo,
        number=1,
        markdown="# Capacity plan\n\nEnough GPUs.",
        review_status=MemoVersion.ReviewStatus.DONE,
        review={"criteria": []},
        score=8.0,
        max_score=10.0,
        reviewed_at=at,
    )
    return MemoDecision.objects.create(
        memo=memo,
        version=version,
        instructor=UserFactory(),
        decision=MemoDecision.Decision.APPROVE,
        created_at=at,
    )


@pytest.fixture
def ready_learner(tracks):
    def make(
        track,
        *,
        user=None,
        exam_score: float | None = 1.0,
        memo: bool = True,
        mastery: float = 0.99,
        at: datetime | None = None,
    ):
        at = at or timezone.now() - timedelta(hours=1)
        user = user or UserFactory()
        set_mastery(user, track, mastery)
        if exam_score is not None:
            finished_exam(user, track, score=exam_score, finished_at=at)
        if memo and track.requires_memo:
            approve_memo(user, at=at)
        return user

    return make
