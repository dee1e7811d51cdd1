"""The certification check's hand-written reads, each held to the queryset it replaced, on
both databases (tests/api_common/test_sql_equivalence.py lists them): the person gate
(orgs.selectors.person_get_for), then certify.statements: the track with its exam, the
tracks' lesson templates, and a standing's evidence (certificates, skill estimates, exam
attempts with their decisions, memo approvals). Each is SQL because the ORM took several
times as long to build it as the database to run it (bench/README.md, issue 43)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Exists, OuterRef, Q
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from api_common.rows import fetch_in
from assess.models import Attempt, SkillMastery
from assess.selectors.learner_rows import estimates_statement
from capstone.models import MemoDecision, MemoVersion
from certify import selectors
from certify import statements as sql
from certify.models import Certificate, ExamDecision
from curricula.models import LessonTemplate
from orgs.models import Membership, Organization
from orgs.selectors import managed_org_ids, person_get_for
from tests.certify.conftest import FLEET, SERVING, approve_memo
from tests.factories import UserFactory
from tests.sql_twins import assert_same

User = get_user_model()


def _orm_person(*, asker, username: str):
    """person_get_for as the ORM said it."""
    people = User.objects.filter(username=username)
    if not asker.is_staff:
        managed = Membership.objects.filter(
            user_id=OuterRef("pk"), organization_id__in=managed_org_ids(user=asker)
        )
        people = people.filter(Q(pk=asker.pk) | Exists(managed))
    return people.get()


ASKERS = [
    "staff",
    "the person",
    "a manager of their organisation",
    "a manager of another organisation",
    "a member beside them",
    "a manager asking a name nobody has",
]


@pytest.mark.django_db
@pytest.mark.parametrize("asker_is", ASKERS)
def test_the_person_gate_finds_whom_its_queryset_finds(asker_is):
    """Whoever asks, the statement finds the person its queryset finds (every column,
    with its type) or, where the queryset finds nobody, raises User.DoesNotExist."""
    ours, theirs = (Organization.objects.create(slug=s, name=s) for s in ("ours", "theirs"))
    person = UserFactory(first_name="Grace", last_name="Hopper")
    Membership.objects.create(organization=ours, user=person)
    asker = {
        "staff": lambda: UserFactory(is_staff=True),
        "the person": lambda: person,
    }.get(asker_is, UserFactory)()
    role = Membership.Role.MEMBER if asker_is == "a member beside them" else None
    if asker_is not in ("staff", "the person"):
        org = theirs if asker_is == "a manager of another organisation" else ours
        Membership.objects.create(
            organization=org, user=asker, role=role or Membership.Role.MANAGER
        )
    username = "nobody-at-all" if asker_is.endswith("nobody has") else person.username
    try:
        want = _orm_person(asker=asker, username=username)
    except User.DoesNotExist:
        with pytest.raises(User.DoesNotExist):
            person_get_for(asker=asker, username=username)
        assert asker_is in ASKERS[3:]
        return
    assert asker_is in ASKERS[:3]
    assert_same(person_get_for(asker=asker, username=username), want)


@pytest.mark.django_db
def test_the_track_read_is_the_tracks_queryset_with_its_exam_loaded(tracks):
    """track_get against `tracks_all().get(slug=...)` (select_related exam): the track's
    and the exam's columns with their types, and the exam reached from the track (and the
    track from the exam) without another query; an unknown slug is Track.DoesNotExist."""
    for slug in tracks:
        want = selectors.tracks_all().get(slug=slug)
        got = selectors.track_get(slug=slug)
        with CaptureQueriesContext(connection) as ctx:
            assert_same(got, want)
            assert_same(got.exam, want.exam)
            assert got.exam.certification_track is got
        assert ctx.captured_queries == []
    with pytest.raises(selectors.Track.DoesNotExist):
        selectors.track_get(slug="no-such-track")


@pytest.mark.django_db
def test_the_tracks_lesson_templates_are_what_their_queryset_lists(tracks):
    """The rules' one statement against the queryset it replaced, row for row in order,
    for each real track, for every track at once and for none."""

    def orm(ids):
        return list(
            LessonTemplate.objects.filter(lesson__tracks__in=ids)
            .order_by(
                "lesson__module__course__order", "lesson__module__order", "lesson__order", "order"
            )
            .values_list("lesson__tracks", "lesson__slug", "lesson__title", "template_slug")
        )

    def written(ids):
        return [tuple(row) for row in fetch_in(sql.links_statement(), [], tracks=ids)]

    every = [t.pk for t in tracks.values()]
    for ids in [[pk] for pk in every] + [every]:
        want = orm(ids)
        assert want and written(ids) == want
    assert selectors.track_rules([]) == {}


def _typed(row) -> list[tuple]:
    """Each value with its type's name: 1 and True, 1.0 and 1 told apart."""
    return [(type(v).__name__, v) for v in row]


@pytest.fixture
def evidence(tracks, ready_learner):
    """Three learners' evidence on the real tracks, of every kind a standing reads:
    estimates, finished exams with and without a recorded decision (passed and not,
    with and without an ability estimate), an open exam, valid and revoked
    certificates, approved memos (one version unscored) beside a request for changes;
    and a fourth learner's, which no read of the three may return."""
    serving, fleet = tracks[SERVING], tracks[FLEET]
    now = timezone.now()
    people = [UserFactory() for _ in range(4)]
    a, b, c, outsider = people
    for who in people:
        ready_learner(serving, user=who, at=now - timedelta(days=2))
    ready_learner(fleet, user=a, exam_score=0.4, at=now - timedelta(days=1))
    decided = Attempt.objects.filter(learner=a).order_by("pk")
    ExamDecision.objects.create(
        attempt=decided[0], rule=ExamDecision.Rule.ABILITY, passed=True, reason="above",
        theta=0.8, se=0.3, cut=0.1, drills_passed=True,
    )  # fmt: skip
    ExamDecision.objects.create(
        attempt=decided[1], rule=ExamDecision.Rule.RAW_SCORE, passed=False, reason="below",
        drills_passed=False,
    )  # fmt: skip
    Attempt.objects.create(
        quiz=fleet.exam, learner=b, number=9, status=Attempt.Status.OPEN,
        started_at=now, deadline=now + timedelta(hours=1),
    )  # fmt: skip
    for holder, revoked in ((b, None), (c, now - timedelta(hours=3))):
        Certificate.objects.create(
            holder=holder, track=serving, issued_at=now - timedelta(days=1),
            expires_at=now + timedelta(days=364), evidence={"kept": "unread"},
            status=Certificate.Status.REVOKED if revoked else Certificate.Status.VALID,
            revoked_at=revoked, revoked_by=outsider if revoked else None,
            revoke_reason="left the team" if revoked else "",
        )  # fmt: skip
    later = approve_memo(c, at=now - timedelta(hours=5))
    MemoVersion.objects.filter(pk=later.version_id).update(score=None, max_score=None)
    MemoDecision.objects.create(
        memo=later.memo, version=later.version, instructor=outsider,
        decision=MemoDecision.Decision.REQUEST_CHANGES, created_at=now,
    )  # fmt: skip
    return [a.pk, b.pk, c.pk], [serving, fleet]


def _certificate_values(cert) -> dict:
    assert cert.get_deferred_fields() == {"evidence"}
    return {
        f.attname: (type(getattr(cert, f.attname)).__name__, getattr(cert, f.attname))
        for f in Certificate._meta.concrete_fields
        if f.name != "evidence"
    }


@pytest.mark.django_db
def test_a_standings_certificates_are_what_their_queryset_reads(evidence):
    """Every column but the evidence snapshot, deferred on both sides, oldest first."""
    people, tracks = evidence
    ids = [t.pk for t in tracks]
    want = Certificate.objects.filter(holder_id__in=people, track__in=tracks)
    want = list(want.defer("evidence").order_by("issued_at", "pk"))
    columns, statement = sql.certificates_statement()
    got = [columns.load(row) for row in fetch_in(statement, [], holders=people, tracks=ids)]
    assert len(want) == 2
    assert [_certificate_values(x) for x in got] == [_certificate_values(x) for x in want]


@pytest.mark.django_db
def test_a_standings_estimates_are_what_their_queryset_reads(evidence):
    people, tracks = evidence
    rules = selectors.track_rules(tracks)
    skills = sorted({s for r in rules.values() for s in r.skills})
    want = SkillMastery.objects.filter(learner_id__in=people, skill__in=skills)
    want = want.values_list("learner_id", "skill", "p_mastery", "responses")
    want = [_typed(r) for r in want]
    got = fetch_in(estimates_statement(), [], learners=people, skills=skills)
    assert len(want) > 30 and sorted(_typed(r) for r in got) == sorted(want)


@pytest.mark.django_db
def test_a_standings_exam_attempts_are_what_their_queryset_reads(evidence):
    """Each attempt with its decision's columns (NULL where none was recorded), newest
    started first."""
    people, tracks = evidence
    exams = [t.exam_id for t in tracks]
    want = Attempt.objects.filter(learner_id__in=people, quiz_id__in=exams).values_list(
        "pk", "learner_id", "quiz_id", "status", "score", "finished_at", "deadline",
        *(f"exam_decision__{f}" for f in sql.EXAM_DECIDED),
    )  # fmt: skip
    want = [_typed(r) for r in want]
    attempt, decision, statement = sql.attempts_statement()
    got = []
    for row in fetch_in(statement, [], learners=people, exams=exams):
        x, d = attempt.load(row), decision.load(row, len(attempt))
        got.append(
            _typed(
                [x.pk, x.learner_id, x.quiz_id, x.status, x.score, x.finished_at, x.deadline]
                + [getattr(d, f) for f in sql.EXAM_DECIDED]
            )
        )
    assert len(want) == 5 and got == want


@pytest.mark.django_db
def test_a_standings_memo_approvals_are_what_their_queryset_reads(evidence):
    people, _ = evidence
    want = MemoDecision.objects.filter(
        decision=MemoDecision.Decision.APPROVE, memo__capstone__learner_id__in=people
    ).order_by("created_at", "pk")
    want = [
        _typed(r)
        for r in want.values_list(
            "memo__capstone__learner_id",
            "memo_id",
            "version__number",
            "version__score",
            "version__max_score",
            "created_at",
        )  # fmt: skip
    ]
    decision, version, statement = sql.approvals_statement()
    got = []
    for row in fetch_in(statement, [MemoDecision.Decision.APPROVE], learners=people):
        d, v = decision.load(row, 1), version.load(row, 1 + len(decision))
        got.append(_typed([row[0], d.memo_id, v.number, v.score, v.max_score, d.created_at]))
    assert len(want) == 4 and got == want
