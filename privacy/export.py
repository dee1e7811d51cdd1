"""A person's own data, as one JSON document ("Download my data", and staff's export
in the admin): the account, its addresses and sign-ins, organisations and courses,
attempts with their questions and answers, mastery, memos and certificates.

What it leaves out is what the person may not see on the site either: a question's
parameters, seed and answer key, and correctness, scores and feedback of an attempt
whose grades are not visible yet (assess.policy.grades_visible: an exam whose results
wait for its close), so a download never says what the pages withhold. Other people's
identities (the instructor who decided a memo, who revoked a certificate) are left out.

The number of queries does not grow with the data (one per kind of row, prefetched),
tests/accounts/test_export.py counts them.

Invitations are the person's too: those mailed to any of their addresses or accepted
by them (where to, when, by whom, their state), not the ones they sent to others.
"""

from __future__ import annotations

from datetime import datetime

from allauth.account.models import EmailAddress
from allauth.socialaccount.models import SocialAccount
from django.db.models import Prefetch, Q
from django.utils import timezone

from assess.models import (
    Attempt,
    CourseRole,
    Enrolment,
    Extension,
    MasteryEvent,
    Question,
    Response,
    SkillMastery,
)
from assess.policy import grades_visible
from capstone.models import Capstone, MemoVersion
from certify.models import Certificate
from invitations.models import Invitation
from orgs.models import Membership, TeamMember

FORMAT = "burn-in-personal-data/1"


def _when(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def personal_data(*, user, now: datetime | None = None) -> dict:
    now = now or timezone.now()
    data = {
        "format": FORMAT,
        "exported_at": _when(now),
        "account": _account(user),
        "organisations": _organisations(user),
        "courses": _courses(user),
        "attempts": _attempts(user, now),
        "mastery": _mastery(user),
        "memos": _memos(user),
        "certificates": _certificates(user, now),
        "invitations": _invitations(user, now),
    }
    return data


def _invitations(user, now: datetime) -> list[dict]:
    """Invitations to the person: mailed to one of their addresses, or accepted by them."""
    addresses = {
        a.lower() for a in EmailAddress.objects.filter(user=user).values_list("email", flat=True)
    }
    if user.email:
        addresses.add(user.email.lower())
    rows = (
        Invitation.objects.filter(Q(email__in=addresses) | Q(accepted_by=user))
        .select_related("organization", "team", "course", "invited_by")
        .order_by("created_at", "pk")
    )
    return [
        {
            "to": i.place_label,
            "email": i.email,
            "invited_by": i.invited_by.get_username() if i.invited_by else None,
            "sent_at": _when(i.sent_at),
            "expires_at": _when(i.expires_at),
            "state": i.state_at(now),
            "accepted": i.accepted_by_id == user.pk,
            "closed_at": _when(i.closed_at),
        }
        for i in rows
    ]


def _account(user) -> dict:
    return {
        "username": user.username,
        "first_name": user.first_name,
        "last_name": user.last_name,
        "email": user.email,
        "date_joined": _when(user.date_joined),
        "last_login": _when(user.last_login),
        "email_addresses": [
            {"email": e.email, "verified": e.verified, "primary": e.primary}
            for e in EmailAddress.objects.filter(user=user).order_by("email")
        ],
        "company_sign_ins": [
            {"provider": s.provider, "subject": s.uid, "date_joined": _when(s.date_joined)}
            for s in SocialAccount.objects.filter(user=user).order_by("provider")
        ],
    }


def _organisations(user) -> list[dict]:
    teams: dict[int, list[str]] = {}
    for org_id, name in TeamMember.objects.filter(user=user).values_list(
        "team__organization_id", "team__name"
    ):
        teams.setdefault(org_id, []).append(name)
    return [
        {
            "organisation": m.organization.name,
            "role": m.role,
            "since": _when(m.created_at),
            "teams": sorted(teams.get(m.organization_id, [])),
        }
        for m in Membership.objects.filter(user=user).select_related("organization")
    ]


def _courses(user) -> dict:
    return {
        "enrolments": [
            {"course": e.course.title, "source": e.source, "since": _when(e.created_at)}
            for e in Enrolment.objects.filter(user=user).select_related("course")
        ],
        "teaching": [
            {"course": r.course.title, "role": r.role}
            for r in CourseRole.objects.filter(user=user).select_related("course")
        ],
        "extensions": [
            {
                "quiz": x.quiz.title,
                "closes_at": _when(x.closes_at),
                "extra_time_seconds": x.extra_time.total_seconds() if x.extra_time else None,
            }
            for x in Extension.objects.filter(learner=user).select_related("quiz")
        ],
    }


def _attempts(user, now) -> list[dict]:
    """The attempts as model instances (the feedback policy decides on them), their
    questions and answers as plain rows: as instances, a learner's 5,344 answers and
    750 questions with their prefetch links took 235-256 ms of the download's 380
    (bench/README.md, the scale section); as rows, about 60."""
    attempts = (
        Attempt.objects.filter(learner=user).select_related("quiz").order_by("started_at", "pk")
    )
    questions: dict[int, list[tuple]] = {}
    for row in (
        Question.objects.filter(attempt__learner=user)
        .order_by("attempt_id", "order", "pk")
        .values_list("attempt_id", "pk", "template_slug", "statement_markdown")
    ):
        questions.setdefault(row[0], []).append(row[1:])
    responses: dict[int, list[tuple]] = {}
    for row in (
        Response.objects.filter(attempt__learner=user)
        .order_by("created_at", "pk")
        .values_list(
            "attempt_id",
            "question_id",
            "part",
            "raw",
            "parsed_unit",
            "created_at",
            "correct",
            "score",
            "feedback",
        )
    ):
        responses.setdefault(row[0], []).append(row[1:])
    out = []
    for attempt in attempts:
        shown = grades_visible(attempt=attempt, now=now)
        answers: dict[int, list[dict]] = {}
        for question_id, part, raw, unit, at, correct, score, feedback in responses.get(
            attempt.pk, []
        ):
            row = {"part": part, "answer": raw, "unit": unit, "at": _when(at)}
            if shown:
                row.update(correct=correct, score=score, feedback=feedback)
            answers.setdefault(question_id, []).append(row)
        out.append(
            {
                "quiz": attempt.quiz.title,
                "mode": attempt.quiz.mode,
                "number": attempt.number,
                "status": attempt.status,
                "started_at": _when(attempt.started_at),
                "finished_at": _when(attempt.finished_at),
                "score": attempt.score if shown else None,
                "grades_shown": shown,
                "questions": [
                    {
                        "template": slug,
                        "statement": statement,
                        "answers": answers.get(pk, []),
                    }
                    for pk, slug, statement in questions.get(attempt.pk, [])
                ],
            }
        )
    return out


def _mastery(user) -> dict:
    return {
        "skills": [
            {
                "skill": m.skill,
                "p_mastery": m.p_mastery,
                "responses": m.responses,
                "updated_at": _when(m.updated_at),
            }
            for m in SkillMastery.objects.filter(learner=user).order_by("skill")
        ],
        "events": [
            {"skill": skill, "p_before": before, "p_after": after, "at": _when(at)}
            for skill, before, after, at in MasteryEvent.objects.filter(learner=user)
            .order_by("created_at", "pk")
            .values_list("skill", "p_before", "p_after", "created_at")
        ],
    }


def _memos(user) -> list[dict]:
    capstones = (
        Capstone.objects.filter(learner=user)
        .select_related("course", "memo")
        .prefetch_related(
            Prefetch("memo__versions", queryset=MemoVersion.objects.order_by("number")),
            "memo__decisions",
        )
    )
    out = []
    for capstone in capstones:
        memo = getattr(capstone, "memo", None)
        entry = {"course": capstone.course.title, "started_at": _when(capstone.created_at)}
        if memo is not None:
            entry.update(
                status=memo.status,
                versions=[
                    {
                        "number": v.number,
                        "markdown": v.markdown,
                        "submitted_at": _when(v.created_at),
                        "review_status": v.review_status,
                        "score": v.score,
                        "max_score": v.max_score,
                    }
                    for v in memo.versions.all()
                ],
                decisions=[
                    {"decision": d.decision, "comment": d.comment, "at": _when(d.created_at)}
                    for d in memo.decisions.all()
                ],
            )
        out.append(entry)
    return out


def _certificates(user, now) -> list[dict]:
    return [
        {
            "id": c.pk,
            "track": c.track.title,
            "status": c.state(now),
            "issued_at": _when(c.issued_at),
            "expires_at": _when(c.expires_at),
            "revoked_at": _when(c.revoked_at),
            "revoke_reason": c.revoke_reason,
            "evidence": c.evidence,
        }
        for c in Certificate.objects.filter(holder=user).select_related("track")
    ]
