"""Capstone memo services, with Celery eager (no broker): a version is stored and its
review runs once the transaction commits; resubmission, the approved memo's finality,
the input limits, who may read or decide, the decision's adjustments, the review's
idempotency, the beat task's re-queue and a broker that refuses the task."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from api_common.service_errors import Conflict, InvalidInput, NotPermitted, TooSoon
from assess.models import Enrolment
from capstone import services as svc
from capstone.memo_review.brief import brief_for
from capstone.memo_review.example import example_memo
from capstone.models import Memo, MemoDecision, MemoVersion
from capstone.selectors import memo_get_for_user, memo_list_for_user
from tests.assess.helpers import age_memo_versions
from tests.factories import CourseFactory, CourseRoleFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def course(db):
    """The capstone's course (the services look it up by slug); `instructor` teaches it."""
    return CourseFactory(slug=svc.CAPSTONE_COURSE)


@pytest.fixture
def submit(django_capture_on_commit_callbacks):
    """submit(learner, text=None) -> the stored version, its review run (on commit)."""

    def run(learner, text: str | None = None, *, memo=None) -> MemoVersion:
        if text is None:
            capstone = svc.capstone_get_or_create(learner=learner)
            text = example_memo(brief_for(capstone.seed))
        with django_capture_on_commit_callbacks(execute=True):
            if memo is None:
                version = svc.memo_submit(learner=learner, markdown=text)
            else:
                version = svc.memo_version_add(learner=learner, memo=memo, markdown=text)
        version.refresh_from_db()
        return version

    return run


def _review(version: MemoVersion) -> dict:
    assert version.review_status == MemoVersion.ReviewStatus.DONE, version.review_error
    return version.review


# ---------------------------------------------------------------------- submitting


def test_submit_creates_version_1_and_its_review(learner, course, submit):
    version = submit(learner)
    assert version.number == 1
    assert version.memo.status == Memo.Status.IN_REVIEW
    assert version.memo.capstone.learner == learner
    assert version.memo.capstone.course == course
    assert Enrolment.objects.filter(user=learner, course=course).exists()
    review = _review(version)
    assert version.deliveries == 1 and version.review_error == ""
    assert version.score == review["score"] and version.max_score == review["max_score"]
    assert review["max_score"] > 0 and review["criteria"]
    # The same brief and text give the same review.
    brief = brief_for(version.memo.capstone.seed)
    from capstone.memo_review.review import review_memo

    assert review_memo(brief, version.markdown).as_dict() == review


def test_the_review_is_queued_only_once_the_version_is_committed(
    learner, course, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        version = svc.memo_submit(learner=learner, markdown="## Assumptions\nNone yet.")
    assert len(callbacks) == 1
    version.refresh_from_db()
    assert version.review_status == MemoVersion.ReviewStatus.QUEUED
    assert version.review is None and version.deliveries == 0


def test_a_resubmission_is_version_2_reviewed_afresh(learner, instructor, course, submit):
    first = submit(learner, "## Assumptions\nA first draft.")
    svc.memo_decide(instructor=instructor, memo=first.memo, decision="request_changes")
    assert Memo.objects.get().status == Memo.Status.CHANGES_REQUESTED
    age_memo_versions()
    second = submit(learner, memo=first.memo)
    assert second.number == 2 and second.memo_id == first.memo_id
    assert Memo.objects.get().status == Memo.Status.IN_REVIEW
    assert _review(second)["score"] > _review(first)["score"]
    first.refresh_from_db()
    assert first.markdown == "## Assumptions\nA first draft." and first.review is not None
    # memo_submit on an existing memo adds a version too (the API refuses it, 409).
    age_memo_versions()
    third = submit(learner, "## Assumptions\nA third.")
    assert (third.number, third.memo_id) == (3, first.memo_id)


def test_an_approved_memo_takes_no_version(learner, instructor, course, submit):
    version = submit(learner)
    svc.memo_decide(instructor=instructor, memo=version.memo, decision="approve")
    with pytest.raises(Conflict):
        svc.memo_version_add(learner=learner, memo=version.memo, markdown="## Demand\nMore.")
    with pytest.raises(Conflict):
        svc.memo_submit(learner=learner, markdown="## Demand\nMore.")
    assert MemoVersion.objects.count() == 1
    assert Memo.objects.get().status == Memo.Status.APPROVED


def test_an_approval_is_final(learner, instructor, course, submit):
    version = submit(learner)
    svc.memo_decide(instructor=instructor, memo=version.memo, decision="approve")
    with pytest.raises(Conflict):
        svc.memo_decide(instructor=instructor, memo=version.memo, decision="request_changes")
    assert Memo.objects.get().status == Memo.Status.APPROVED
    assert version.memo.decisions.count() == 1


@pytest.mark.parametrize(
    "markdown",
    ["", "   \n\t ", "x" * (svc.MAX_MEMO_CHARS + 1), "## Demand\nA\x00B", None, 42],
    ids=["empty", "blank", "too-long", "nul", "none", "not-text"],
)
def test_unusable_text_is_refused_and_nothing_is_stored(learner, course, markdown):
    with pytest.raises(InvalidInput) as refused:
        svc.memo_submit(learner=learner, markdown=markdown)
    assert refused.value.field == "markdown"
    assert not Memo.objects.exists() and not MemoVersion.objects.exists()


def test_the_longest_text_is_taken(learner, course, django_capture_on_commit_callbacks):
    text = "## Assumptions\n" + "x" * (svc.MAX_MEMO_CHARS - 15)
    assert len(text) == svc.MAX_MEMO_CHARS
    with django_capture_on_commit_callbacks(execute=True):
        version = svc.memo_submit(learner=learner, markdown=text)
    version.refresh_from_db()
    assert version.markdown == text and version.review_status == "done"


def test_a_course_closed_to_self_enrolment_refuses_an_unenrolled_learner(learner, course):
    course.self_enrol = False
    course.save()
    with pytest.raises(NotPermitted):
        svc.memo_submit(learner=learner, markdown="## Demand\nText.")
    assert not Memo.objects.exists()


# -------------------------------------------------------------------------- access


def test_another_learner_neither_reads_nor_extends_the_memo(
    learner, other_learner, instructor, staff, course, submit
):
    version = submit(learner)
    memo = version.memo
    with pytest.raises(Memo.DoesNotExist):
        memo_get_for_user(user=other_learner, pk=memo.pk)
    assert list(memo_list_for_user(user=other_learner)) == []
    with pytest.raises(NotPermitted):
        svc.memo_version_add(learner=other_learner, memo=memo, markdown="## Demand\nMine.")
    with pytest.raises(NotPermitted):  # nor may its instructor write the learner's text
        svc.memo_version_add(learner=instructor, memo=memo, markdown="## Demand\nMine.")
    for reader in (learner, instructor, staff):
        assert memo_get_for_user(user=reader, pk=memo.pk) == memo
        assert list(memo_list_for_user(user=reader)) == [memo]
    assert MemoVersion.objects.count() == 1


def test_the_list_puts_memos_waiting_for_a_decision_first(instructor, course, submit):
    a, b, c = (submit(UserFactory()).memo for _ in range(3))
    svc.memo_decide(instructor=instructor, memo=b, decision="request_changes")
    assert list(memo_list_for_user(user=instructor)) == [c, a, b]


# ------------------------------------------------------------------------ decisions


def _criteria(version: MemoVersion) -> dict[str, dict]:
    return {c["code"]: c for c in _review(version)["criteria"]}


def test_an_instructor_approves_with_adjustments(learner, instructor, course, submit):
    version = submit(learner)
    code, criterion = next(iter(_criteria(version).items()))
    points = 0.0 if criterion["points"] else float(criterion["max_points"])
    decision = svc.memo_decide(
        instructor=instructor,
        memo=version.memo,
        decision="approve",
        comment="  Good plan.  ",
        adjustments=[{"criterion": code, "points": points, "comment": "Reconsidered."}],
    )
    assert decision.version == version and decision.comment == "Good plan."
    assert decision.adjustments == [
        {"criterion": code, "points": points, "comment": "Reconsidered."}
    ]
    assert Memo.objects.get().status == Memo.Status.APPROVED
    expected = version.score - criterion["points"] + points
    assert svc.adjusted_score(version, decision) == pytest.approx(expected)
    assert svc.adjusted_score(version, None) == pytest.approx(version.score)


@pytest.mark.parametrize(
    ("adjustment", "field"),
    [
        (
            {"criterion": "no-such-criterion", "points": 0, "comment": "x"},
            "adjustments.0.criterion",
        ),
        ({"criterion": "sections", "points": -1, "comment": "x"}, "adjustments.0.points"),
        ({"criterion": "sections", "points": 1000, "comment": "x"}, "adjustments.0.points"),
        ({"criterion": "sections", "points": "3", "comment": "x"}, "adjustments.0.points"),
        ({"criterion": "sections", "points": 1}, "adjustments.0.comment"),
        ({"criterion": "sections", "points": 1, "comment": "   "}, "adjustments.0.comment"),
    ],
    ids=["criterion", "negative", "over-max", "not-a-number", "no-comment", "blank-comment"],
)
def test_a_bad_adjustment_is_refused_and_nothing_changes(
    learner, instructor, course, submit, adjustment, field
):
    version = submit(learner)
    with pytest.raises(InvalidInput) as refused:
        svc.memo_decide(
            instructor=instructor, memo=version.memo, decision="approve", adjustments=[adjustment]
        )
    assert refused.value.field == field
    assert not MemoDecision.objects.exists()
    assert Memo.objects.get().status == Memo.Status.IN_REVIEW


def test_an_unknown_decision_is_refused(learner, instructor, course, submit):
    version = submit(learner)
    with pytest.raises(InvalidInput) as refused:
        svc.memo_decide(instructor=instructor, memo=version.memo, decision="maybe")
    assert refused.value.field == "decision"


def test_no_decision_before_the_latest_version_is_reviewed(
    learner, instructor, course, submit, django_capture_on_commit_callbacks
):
    version = submit(learner)
    age_memo_versions()
    with django_capture_on_commit_callbacks(execute=False):  # its review never runs
        svc.memo_version_add(learner=learner, memo=version.memo, markdown="## Demand\nv2")
    with pytest.raises(Conflict):
        svc.memo_decide(instructor=instructor, memo=version.memo, decision="approve")
    assert not MemoDecision.objects.exists()


def test_only_the_courses_instructors_and_staff_decide(
    learner, other_learner, instructor, staff, course, submit
):
    version = submit(learner)
    teacher_elsewhere = CourseRoleFactory().user  # instructs another course
    for user in (learner, other_learner, teacher_elsewhere):
        with pytest.raises(NotPermitted):
            svc.memo_decide(instructor=user, memo=version.memo, decision="approve")
    assert not MemoDecision.objects.exists()
    svc.memo_decide(instructor=staff, memo=version.memo, decision="request_changes")
    assert Memo.objects.get().status == Memo.Status.CHANGES_REQUESTED


# ------------------------------------------------------------------------ the review


def test_a_second_delivery_changes_nothing(learner, course, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False):  # the test delivers it itself
        version = svc.memo_submit(learner=learner, markdown="## Assumptions\nSome.")
    assert svc.memo_review_run(version_id=version.pk) == "done"
    version.refresh_from_db()
    first = (version.review, version.score, version.reviewed_at, version.deliveries)
    assert svc.memo_review_run(version_id=version.pk) == "already"
    version.refresh_from_db()
    assert (version.review, version.score, version.reviewed_at, version.deliveries) == first
    assert version.deliveries == 1
    assert svc.memo_review_run(version_id=version.pk + 1000) == "missing"


def test_the_beat_task_requeues_a_review_stuck_in_the_queue(
    learner, other_learner, course, django_capture_on_commit_callbacks
):
    now = timezone.now()
    with django_capture_on_commit_callbacks(execute=False):  # both queue entries are lost
        old = svc.memo_submit(
            learner=learner, markdown="## Demand\nOld.", now=now - timedelta(hours=1)
        )
        fresh = svc.memo_submit(learner=other_learner, markdown="## Demand\nNew.", now=now)
    assert svc.memo_reviews_requeue_stuck(now=now) == 1
    old.refresh_from_db()
    fresh.refresh_from_db()
    assert old.review_status == "done" and old.queued_at == now  # eager: reviewed at once
    assert fresh.review_status == "queued" and fresh.review is None
    assert svc.memo_reviews_requeue_stuck(now=now) == 0  # the fresh one is not yet stuck


def test_a_broker_that_refuses_the_task_costs_no_submission(
    learner, course, monkeypatch, django_capture_on_commit_callbacks
):
    from capstone import tasks

    def refuse(*args, **kwargs):
        raise ConnectionError("redis is down")

    monkeypatch.setattr(tasks.review_memo_version, "delay", refuse)
    with django_capture_on_commit_callbacks(execute=True):
        version = svc.memo_submit(learner=learner, markdown="## Demand\nStill stored.")
    assert svc.review_enqueue(version.pk) is False
    version.refresh_from_db()
    assert version.review_status == "queued" and version.markdown == "## Demand\nStill stored."
    # The beat task leaves it queued while the broker still refuses (queued_at unchanged).
    later = version.queued_at + svc.STUCK_AFTER + timedelta(seconds=1)
    assert svc.memo_reviews_requeue_stuck(now=later) == 1
    version.refresh_from_db()
    assert version.queued_at < later and version.review_status == "queued"


def test_a_review_that_raises_is_marked_failed_with_the_reason(
    learner, course, monkeypatch, django_capture_on_commit_callbacks
):
    from capstone.memo_review import review

    def broken(brief, text):
        raise ValueError("the parser fell over")

    monkeypatch.setattr(review, "review_memo", broken)
    with django_capture_on_commit_callbacks(execute=True):
        version = svc.memo_submit(learner=learner, markdown="## Demand\nText.")
    version.refresh_from_db()
    assert version.review_status == "failed"
    assert "ValueError: the parser fell over" in version.review_error
    assert version.review is None and version.score is None


def test_no_one_decides_on_their_own_memo(instructor, staff, course, submit):
    """Separation of duties: an instructor of the course, or staff, who writes a memo
    cannot approve it (nor ask for changes); another instructor can."""
    for author in (instructor, staff):
        version = submit(author)
        for decision in ("approve", "request_changes"):
            with pytest.raises(NotPermitted, match="your own memo"):
                svc.memo_decide(instructor=author, memo=version.memo, decision=decision)
        assert not MemoDecision.objects.filter(memo=version.memo).exists()
        assert Memo.objects.get(pk=version.memo.pk).status == Memo.Status.IN_REVIEW
    colleague = CourseRoleFactory(course=course).user
    svc.memo_decide(instructor=colleague, memo=version.memo, decision="approve")
    assert Memo.objects.get(pk=version.memo.pk).status == Memo.Status.APPROVED


def test_an_instructor_decides_only_on_memos_of_learners_they_teach(
    learner, course, submit, lms_context
):
    """The service applies the memo gate itself (not only the views): an instructor
    scoped to an LMS course whose members do not include the learner may not decide."""
    version = submit(learner)
    scoped = CourseRoleFactory(course=course, lti_context=lms_context).user
    with pytest.raises(NotPermitted):
        svc.memo_decide(instructor=scoped, memo=version.memo, decision="approve")
    assert not MemoDecision.objects.exists()


# ------------------------------------------------------------------------ the limits


def test_one_new_version_a_minute_and_nothing_stored_before(learner, course, submit):
    first = submit(learner, "## Assumptions\nv1")
    soon = first.created_at + svc.VERSION_INTERVAL - timedelta(seconds=20)
    with pytest.raises(TooSoon) as refused:
        svc.memo_version_add(learner=learner, memo=first.memo, markdown="v2", now=soon)
    assert refused.value.retry_after == 20
    with pytest.raises(TooSoon):  # the writing page's path too
        svc.memo_submit(learner=learner, markdown="v2", now=soon)
    assert MemoVersion.objects.count() == 1
    later = first.created_at + svc.VERSION_INTERVAL
    assert svc.memo_version_add(learner=learner, memo=first.memo, markdown="v2", now=later)


def test_a_memo_holds_at_most_thirty_versions(learner, course):
    start = timezone.now()
    for n in range(svc.MAX_VERSIONS):
        at = start + n * svc.VERSION_INTERVAL
        version = svc.memo_submit(learner=learner, markdown=f"## Demand\nv{n + 1}", now=at)
    assert version.number == svc.MAX_VERSIONS
    later = start + svc.MAX_VERSIONS * svc.VERSION_INTERVAL
    with pytest.raises(Conflict, match="30 versions"):
        svc.memo_version_add(learner=learner, memo=version.memo, markdown="v31", now=later)
    assert MemoVersion.objects.count() == svc.MAX_VERSIONS


def test_memo_create_refuses_a_second_memo(learner, course):
    first = svc.memo_create(learner=learner, markdown="## Assumptions\nv1")
    with pytest.raises(Conflict, match=f"id {first.memo_id}"):
        svc.memo_create(learner=learner, markdown="## Assumptions\nagain")
    assert MemoVersion.objects.count() == 1
