"""Reads for certification: the rules of each track, a learner's evidence, readiness of
one person or a whole team in a constant number of queries.

Most functions here trust their caller; the access gates (certificate_get_for_user and
the orgs selectors) decide who may read what.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from django.db.models import QuerySet
from django.utils import timezone

from accounts.selectors import is_erased
from api_common.rows import fetch_in
from assess import skills as skill_map
from assess.mastery import bkt
from assess.models import Attempt, SkillMastery
from assess.selectors.learner_rows import estimates_statement
from capstone.models import MemoDecision
from certify import requirements as req
from certify import statements as sql
from certify.models import Certificate, Track

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def tracks_all() -> QuerySet[Track]:
    return Track.objects.select_related("exam").order_by("order", "slug")


def track_rules(tracks: Sequence[Track]) -> dict[int, req.TrackRules]:
    """The rules of each track (one query for every lesson's templates)."""
    ids = [t.pk for t in tracks]
    links = fetch_in(sql.links_statement(), [], tracks=ids) if ids else []
    lessons: dict[int, dict[str, tuple[str, list[str]]]] = defaultdict(dict)
    for track_id, slug, title, template in links:
        lessons[track_id].setdefault(slug, (title, []))[1].append(template)
    return {
        t.pk: req.TrackRules(
            slug=t.slug,
            title=t.title,
            lessons=tuple(
                req.LessonSkills(
                    slug, title, skill_map.lesson_skills(skill_map.known_templates(templates))
                )
                for slug, (title, templates) in lessons[t.pk].items()
            ),
            threshold=t.mastery_threshold,
            pass_mark=t.exam.pass_mark,
            cooldown=t.exam.cooldown,
            requires_memo=t.requires_memo,
        )
        for t in tracks
    }


def certificate_state(certificate: Certificate, now: datetime) -> req.CertificateState:
    return req.CertificateState(
        id=certificate.pk,
        state=certificate.state(now),
        issued_at=certificate.issued_at,
        expires_at=certificate.expires_at,
        revoked_at=certificate.revoked_at,
        revoke_reason=certificate.revoke_reason,
    )


@dataclass(frozen=True)
class Cell:
    """One person on one track."""

    user_id: int
    track: Track
    standing: req.Standing
    certificate: Certificate | None  # the latest one, whatever its state


def standings(
    *, user_ids: Iterable[int], tracks: Sequence[Track], now: datetime | None = None
) -> dict[tuple[int, int], Cell]:
    """Standing of every (user, track): five queries whatever the numbers of people and
    tracks (rules, certificates, mastery, exam attempts, memo approvals), each written as
    SQL (certify.statements says why)."""
    now = now or timezone.now()
    user_ids = list(user_ids)
    tracks = list(tracks)
    if not user_ids or not tracks:
        return {}
    rules = track_rules(tracks)
    track_ids = [t.pk for t in tracks]
    latest: dict[tuple[int, int], Certificate] = {}
    # Not the evidence snapshot: a standing reads a certificate's dates and state, and
    # decoding every snapshot was a tenth of a team's readiness (issue 43).
    columns, statement = sql.certificates_statement()
    for row in fetch_in(statement, [], holders=user_ids, tracks=track_ids):
        cert = columns.load(row)
        latest[(cert.holder_id, cert.track_id)] = cert
    # A pass counts once: those finished up to the latest certificate's issue (or its
    # revocation, so a pass taken while certified cannot undo a revocation) are spent.
    # While the certificate is valid its own pass still shows as met.
    spent_until = {
        key: max(cert.issued_at, cert.revoked_at or cert.issued_at)
        for key, cert in latest.items()
        if cert.state(now) != Certificate.Status.VALID
    }
    skills = sorted({s for r in rules.values() for s in r.skills})
    mastery: dict[int, dict[str, float]] = defaultdict(dict)
    if skills:
        for user_id, skill, p, _ in fetch_in(
            estimates_statement(), [], learners=user_ids, skills=skills
        ):
            mastery[user_id][skill] = p
    exam_track = {t.exam_id: t.pk for t in tracks}
    exams: dict[tuple[int, int], list[req.ExamResult]] = defaultdict(list)
    open_exam: set[tuple[int, int]] = set()
    # Each exam's recorded decision comes in the same row (a LEFT JOIN to its one-to-one
    # ExamDecision): no query of its own however many attempts.
    attempt_columns, decision_columns, statement = sql.attempts_statement()
    for row in fetch_in(statement, [], learners=user_ids, exams=list(exam_track)):
        attempt = attempt_columns.load(row)
        decision = decision_columns.load(row, len(attempt_columns))
        key = (attempt.learner_id, exam_track[attempt.quiz_id])
        if attempt.status == Attempt.Status.OPEN:
            if attempt.deadline is None or attempt.deadline > now:
                open_exam.add(key)
            continue
        finished_at = attempt.finished_at
        if (
            attempt.score is None
            or finished_at is None
            or finished_at <= spent_until.get(key, _EPOCH)
        ):
            continue  # spent on an earlier certificate (or before its revocation)
        exams[key].append(
            req.ExamResult(
                attempt.pk,
                attempt.score,
                finished_at,
                passed=decision.passed,
                rule=decision.rule or "",
                reason=decision.reason or "",
                theta=decision.theta,
                se=decision.se,
                cut=decision.cut,
            )
        )
    memos: dict[int, req.MemoApproval] = {}
    # Four numbers of each approval: a version's Markdown (up to 60,000 characters), its
    # HTML and its review stay unread.
    decision_columns, version_columns, statement = sql.approvals_statement()
    approve = MemoDecision.Decision.APPROVE
    for row in fetch_in(statement, [approve], learners=user_ids):
        decision = decision_columns.load(row, 1)
        version = version_columns.load(row, 1 + len(decision_columns))
        memos[row[0]] = req.MemoApproval(
            memo_id=decision.memo_id,
            version=version.number,
            score=version.score,
            max_score=version.max_score,
            approved_at=decision.created_at,
        )
    cells = {}
    for user_id in user_ids:
        for track in tracks:
            key = (user_id, track.pk)
            evidence = req.Evidence(
                mastery=mastery[user_id],
                exams=tuple(exams[key]),
                exam_open=key in open_exam,
                memo=memos.get(user_id),
            )
            readiness = req.evaluate(
                rules[track.pk], evidence, now=now, p_init=bkt.DEFAULT_PARAMS.p_init
            )
            cert = latest.get(key)
            state = certificate_state(cert, now) if cert else None
            cells[key] = Cell(user_id, track, req.standing(readiness, state), cert)
    return cells


def standings_for_user(*, user, now: datetime | None = None) -> list[Cell]:
    tracks = list(tracks_all())
    cells = standings(user_ids=[user.pk], tracks=tracks, now=now)
    return [cells[(user.pk, t.pk)] for t in tracks]


def standing_for(*, user, track: Track, now: datetime | None = None) -> Cell:
    return standings(user_ids=[user.pk], tracks=[track], now=now)[(user.pk, track.pk)]


def certificates_for_holder(*, user) -> QuerySet[Certificate]:
    return Certificate.objects.filter(holder=user).select_related("track")


# ------------------------------------------------------------- reads for the REST API


def tracks_listed() -> QuerySet[Track]:
    """Every track with what its listing shows (lessons, the exam's slots) prefetched."""
    return tracks_all().prefetch_related("lessons", "exam__slots")


def track_get(*, slug: str) -> Track:
    """A track by slug, its exam loaded (Track.DoesNotExist otherwise); tracks are public
    to signed-in users, so there is no gate."""
    track_columns, exam_columns, statement = sql.track_statement()
    rows = fetch_in(statement, [slug])
    if not rows:
        raise Track.DoesNotExist("no track with that slug")
    track = track_columns.load(rows[0])
    exam = exam_columns.load(rows[0], len(track_columns))
    # as select_related("exam") leaves them: each side's cache holds the other
    Track.exam.field.set_cached_value(track, exam)
    Track.exam.field.remote_field.set_cached_value(exam, track)
    return track


def tracks_for_team(*, team) -> list[Track]:
    """The team's tracks, or every track when the team names none (its matrix columns)."""
    return list(tracks_all().filter(teams=team)) or list(tracks_all())


DELETED_HOLDER = "a deleted account"


def holder_public_name(user) -> str:
    """The holder's name on a public page (full name, else username); none for an
    account its owner deleted (privacy.erasure)."""
    if is_erased(user):
        return DELETED_HOLDER
    return user.get_full_name().strip() or user.get_username()


def certificate_get_public(*, pk: str) -> Certificate:
    """Any certificate by its id, for the public verification (the id is the secret)."""
    return Certificate.objects.select_related("track", "holder", "holder__erasure").get(pk=pk)


def certificate_get_for_user(*, user, pk: str) -> Certificate:
    """A certificate its holder, a manager of the holder's organisation or staff may
    read; Certificate.DoesNotExist for anyone else, as for an unknown id."""
    # Imported here only so that this appended block leaves the module's header alone.
    from orgs.selectors import user_manages

    certificate = Certificate.objects.select_related("track", "holder", "revoked_by").get(pk=pk)
    if certificate.holder_id == user.pk or user_manages(
        manager=user, user_id=certificate.holder_id
    ):
        return certificate
    raise Certificate.DoesNotExist


# ------------------------------------------------------------- the exam's start gate


@dataclass(frozen=True)
class ExamGate:
    """A track's certification exam as one learner stands before it: the lessons whose
    skills are still below the track's threshold (empty: the exam may start)."""

    track: Track
    missing: tuple[req.LessonSkills, ...]

    @property
    def open(self) -> bool:
        return not self.missing


def exam_gates(*, quiz_ids: Iterable[int], learner_id: int) -> dict[int, ExamGate]:
    """{quiz id: its gate} for the quizzes that are some track's exam (the others are
    absent): three queries however many (the tracks, their lessons' templates, the
    learner's mastery of their skills); none when no quiz id is given."""
    quiz_ids = list(quiz_ids)
    if not quiz_ids:
        return {}
    tracks = list(Track.objects.filter(exam_id__in=quiz_ids))
    if not tracks:
        return {}
    rules = track_rules(tracks)
    skills = sorted({s for r in rules.values() for s in r.skills})
    mastery = dict(
        SkillMastery.objects.filter(learner_id=learner_id, skill__in=skills).values_list(
            "skill", "p_mastery"
        )
    )
    p_init = bkt.DEFAULT_PARAMS.p_init
    return {
        t.exam_id: ExamGate(t, req.lessons_below(rules[t.pk], mastery, p_init=p_init))
        for t in tracks
    }


def exam_gate(*, quiz_id: int, learner_id: int) -> ExamGate | None:
    """The lesson-mastery gate of the track whose exam this quiz is (None when it is no
    track's exam). attempt_start asks it for every certification start; the start page
    asks it to name what is missing."""
    return exam_gates(quiz_ids=[quiz_id], learner_id=learner_id).get(quiz_id)
