"""load_demo's certification part: an organisation with a manager and an on-call team
whose matrix shows each kind of cell (certified, expired, in progress).

Idempotent like the rest of load_demo. The certified engineer earns the certificate
through the real issuing service: their mastery rows, a passed exam attempt and an
approved memo (reviewed and decided through the memo services) are the evidence it
snapshots. The expired engineer's certificate is a row dated a year and more ago: no
honest way makes a certificate old.
"""

from __future__ import annotations

from datetime import timedelta

from django.core.management.base import CommandError
from django.utils import timezone

from assess.models import Attempt, SkillMastery
from assess.services.enrolments import enrolment_add
from capstone.memo_review.example import example_memo
from capstone.models import Memo
from capstone.services import (
    capstone_brief,
    capstone_course,
    capstone_get_or_create,
    memo_decide,
    memo_review_run,
    memo_submit,
)
from certify.models import Certificate, Track
from certify.selectors import track_rules
from certify.services.certificates import certificates_issue_due
from orgs.models import Membership
from orgs.services import member_add, organization_create, team_create, team_member_add

TRACK = "inference-serving-oncall"
ORG = ("demo-gpu-cloud", "Demo GPU Cloud")
TEAM = ("inference-on-call", "Inference on-call")
MASTERED = 0.99


def demo_track() -> Track:
    track = Track.objects.select_related("exam").filter(slug=TRACK).first()
    if track is None:
        raise CommandError(f"Track {TRACK!r} is not loaded: run load_tracks first.")
    return track


def load_certification(out, users: dict, track: Track) -> None:
    """users: admin, manager, instructor, learner, oncall, lapsed (made by the command)."""
    org = organization_create(slug=ORG[0], name=ORG[1])
    member_add(organization=org, user=users["manager"], role=Membership.Role.MANAGER)
    team = team_create(organization=org, slug=TEAM[0], name=TEAM[1], tracks=[track])
    for username in ("learner", "oncall", "lapsed"):
        team_member_add(team=team, user=users[username])
    out.write(f"team “{team.name}” of {org.name}, managed by manager")
    _certified(out, users, track)
    _expired(out, users["lapsed"], track)


def _certified(out, users: dict, track: Track) -> None:
    engineer = users["oncall"]
    if Certificate.objects.filter(holder=engineer, track=track).exists():
        out.write("oncall certificate [exists]")
        return
    now = timezone.now()
    for skill in track_rules([track])[track.pk].skills:
        SkillMastery.objects.update_or_create(
            learner=engineer, skill=skill, defaults={"p_mastery": MASTERED, "responses": 12}
        )
    if not Attempt.objects.filter(quiz=track.exam, learner=engineer).exists():
        Attempt.objects.create(
            quiz=track.exam,
            learner=engineer,
            number=1,
            status=Attempt.Status.FINISHED,
            started_at=now - timedelta(minutes=50),
            deadline=now - timedelta(minutes=50) + track.exam.time_limit,
            finished_at=now - timedelta(minutes=5),
            score=0.9,
        )
    if track.requires_memo:
        _approved_memo(engineer, users)
    (certificate,) = certificates_issue_due(user_id=engineer.pk)
    out.write(f"oncall certificate {certificate.pk} [created]")


def _approved_memo(engineer, users: dict) -> None:
    course = capstone_course()
    enrolment_add(actor=users["admin"], course=course, username=engineer.username)
    capstone = capstone_get_or_create(learner=engineer, course=course)
    memo = Memo.objects.filter(capstone=capstone).first()
    if memo is None:
        version = memo_submit(learner=engineer, markdown=example_memo(capstone_brief(capstone)))
        memo_review_run(version_id=version.pk)
        memo = version.memo
    if memo.status != Memo.Status.APPROVED:
        memo_decide(instructor=users["instructor"], memo=memo, decision="approve", comment="Demo.")


def _expired(out, engineer, track: Track) -> None:
    if Certificate.objects.filter(holder=engineer, track=track).exists():
        out.write("lapsed certificate [exists]")
        return
    issued = timezone.now() - timedelta(days=track.validity_days + 40)
    certificate = Certificate.objects.create(
        holder=engineer,
        track=track,
        status=Certificate.Status.EXPIRED,
        issued_at=issued,
        expires_at=issued + timedelta(days=track.validity_days),
        evidence={"track": track.slug, "note": "demo certificate, issued long ago"},
    )
    out.write(f"lapsed certificate {certificate.pk} (expired) [created]")
