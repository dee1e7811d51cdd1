"""Capstone memos: the learner's brief, submitting versions, the review a worker runs for
each version, and the instructor's decision.

Never lose a memo: a version is committed before its review is queued
(`transaction.on_commit`), so a worker never looks for a row that is not there and a
broker outage loses a queue entry, not a memo (the beat task re-queues any version left
queued or running past its deadline). A review is idempotent per version: the review is
a pure function of the brief and the text, it is written once under the row's lock, and a
second delivery finds it done and changes nothing.
"""

from __future__ import annotations

import logging
import math
import secrets
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from api_common.service_errors import Conflict, InvalidInput, NotPermitted, TooSoon
from assess.models import Enrolment
from assess.selectors import user_is_enrolled
from assess.selectors.duties import Judgement, refuse_own_work
from assess.services.enrolments import SELF_ENROL_REFUSED, enrolment_self
from assess.signals import progress_recorded_on_commit
from capstone.memo_review import kept
from capstone.memo_review.brief import Brief
from capstone.memo_review.memo_markdown import memo_html
from capstone.models import Capstone, Memo, MemoDecision, MemoVersion
from capstone.selectors import memo_is_taught_by
from config.celery import queue
from config.metrics import MEMO_REVIEW_LAG
from curricula.models import Course

log = logging.getLogger(__name__)

CAPSTONE_COURSE = "foundations-of-ai-infrastructure"
MAX_MEMO_CHARS = 60_000  # a long memo is ~3,000 words; this is ten times that
# A memo's versions are bounded: each is up to MAX_MEMO_CHARS and every read of the memo
# returns them all (150 versions made one GET 9.4 MB), and each queues a review.
MAX_VERSIONS = 30
VERSION_INTERVAL = timedelta(minutes=1)  # at most one new version per memo per minute
STUCK_AFTER = timedelta(minutes=15)  # queued or running this long: queue it again
SEED_BITS = 48


def capstone_course() -> Course:
    try:
        return Course.objects.get(slug=CAPSTONE_COURSE)
    except Course.DoesNotExist as exc:
        raise Conflict("The capstone's course is not loaded (manage.py load_curricula).") from exc


def capstone_start(*, learner, course: Course | None = None) -> tuple[Capstone, bool]:
    """(the learner's capstone in the course, whether this call drew it). Drawn once
    with a fresh seed, and the brief stored as drawn (kept.draw); a learner not enrolled
    is enrolled where the course allows it (NotPermitted otherwise). A write: only a POST
    starts a capstone, never a read."""
    course = course or capstone_course()
    existing = Capstone.objects.filter(learner=learner, course=course).first()
    if existing is not None:
        return existing, False
    if not (learner.is_staff or user_is_enrolled(user=learner, course_id=course.pk)):
        enrolment_self(user=learner, course=course, source=Enrolment.Source.SELF)
    seed = secrets.randbits(SEED_BITS)
    brief, version = kept.draw(seed)
    return Capstone.objects.get_or_create(
        learner=learner,
        course=course,
        defaults={"seed": seed, "brief": brief, "brief_version": version},
    )


def capstone_start_check(*, learner, course: Course) -> None:
    """NotPermitted where capstone_start would refuse the learner (not staff, no
    capstone yet, not enrolled, and the course takes learners only from its
    instructors); writes nothing. The API asks it before it reads a memo's body, so
    the refusal is for who the learner is, never for what they wrote."""
    if learner.is_staff or course.self_enrol:
        return
    if Capstone.objects.filter(learner=learner, course=course).exists():
        return
    if not user_is_enrolled(user=learner, course_id=course.pk):
        raise NotPermitted(SELF_ENROL_REFUSED)


def capstone_get_or_create(*, learner, course: Course | None = None) -> Capstone:
    """The learner's capstone, started now if it was not (capstone_start)."""
    return capstone_start(learner=learner, course=course)[0]


def capstone_brief(capstone: Capstone) -> Brief:
    """The brief the capstone was drawn with (stored; a later generator never changes it)."""
    return kept.brief_of(capstone.seed, capstone.brief, capstone.brief_version)


def _clean(markdown: object) -> str:
    if not isinstance(markdown, str) or not markdown.strip():
        raise InvalidInput("The memo is empty: send its Markdown text.", field="markdown")
    if len(markdown) > MAX_MEMO_CHARS:
        raise InvalidInput(
            f"The memo is {len(markdown):,} characters; the limit is {MAX_MEMO_CHARS:,}.",
            field="markdown",
        )
    if "\x00" in markdown:
        raise InvalidInput("The memo contains a NUL character.", field="markdown")
    return markdown


def review_enqueue(version_id: int) -> bool:
    """Hand one version's review to the broker; False when the broker cannot take it.

    The version is already committed, so a broker outage must not turn the learner's
    submission into an error: the review stays `queued`, and the beat task queues it
    again once it has waited past STUCK_AFTER (or an operator runs it sooner)."""
    return queue(
        "capstone.tasks.review_memo_version", version_id, what=f"memo version {version_id}: review"
    )


def _queue_review(version: MemoVersion) -> None:
    """Queue the review once the version's transaction has committed."""
    version_id = version.pk
    transaction.on_commit(lambda: review_enqueue(version_id))


@transaction.atomic
def memo_submit(*, learner, markdown: str, now: datetime | None = None) -> MemoVersion:
    """The learner's memo gets a new version (version 1 creates the memo) and a review
    is queued for it: the writing page's one action. An approved memo is final, a memo
    holds at most MAX_VERSIONS (Conflict), and takes one version per VERSION_INTERVAL
    (TooSoon)."""
    text = _clean(markdown)
    html = memo_html(text)  # before any lock: the one parse of the text a page will show
    capstone = _capstone_locked(learner)
    memo, _ = Memo.objects.get_or_create(capstone=capstone)
    return _add_version(memo, text, html, now or timezone.now())


@transaction.atomic
def memo_create(*, learner, markdown: str, now: datetime | None = None) -> MemoVersion:
    """The learner's first memo (version 1), or Conflict naming the memo they have.
    The capstone row is locked before the check, so of first submissions racing each
    other exactly one creates the memo and every other is refused (the API's 201 and
    409s), never a version 2 slipped in behind the check."""
    text = _clean(markdown)
    html = memo_html(text)
    capstone = _capstone_locked(learner)
    existing = Memo.objects.filter(capstone=capstone).values_list("pk", flat=True).first()
    if existing is not None:
        raise Conflict(
            f"You already have a memo (id {existing}): add a version with "
            f"POST /api/memos/{existing}/versions/."
        )
    memo = Memo.objects.create(capstone=capstone)
    return _add_version(memo, text, html, now or timezone.now())


def _capstone_locked(learner) -> Capstone:
    """The learner's capstone (drawn if need be), its row locked until the transaction
    ends: what orders a learner's memo submissions."""
    capstone = capstone_get_or_create(learner=learner)
    return Capstone.objects.select_for_update().get(pk=capstone.pk)


@transaction.atomic
def memo_version_add(*, learner, memo: Memo, markdown: str, now: datetime | None = None):
    """A resubmission of the learner's own memo: a new version, reviewed afresh."""
    if memo.capstone.learner_id != learner.pk:
        raise NotPermitted("Only the memo's author adds versions to it.")
    text = _clean(markdown)
    return _add_version(memo, text, memo_html(text), now or timezone.now())


def _add_version(memo: Memo, text: str, html: str, now: datetime) -> MemoVersion:
    memo = Memo.objects.select_for_update().get(pk=memo.pk)
    if memo.status == Memo.Status.APPROVED:
        raise Conflict("This memo is approved; it takes no more versions.")
    latest = memo.versions.order_by("-number").values_list("number", "created_at").first()
    last, last_at = latest or (0, None)
    if last >= MAX_VERSIONS:
        raise Conflict(
            f"This memo has {MAX_VERSIONS} versions, the most a memo may have: it takes no "
            "more. Ask your instructor to decide on the latest."
        )
    if last_at is not None and now < last_at + VERSION_INTERVAL:
        wait = math.ceil((last_at + VERSION_INTERVAL - now).total_seconds())
        raise TooSoon(
            f"A memo takes one new version a minute: send this one in {wait} s "
            "(your text is kept).",
            retry_after=wait,
        )
    version = MemoVersion.objects.create(
        memo=memo, number=last + 1, markdown=text, html=html, created_at=now, queued_at=now
    )
    memo.status, memo.updated_at = Memo.Status.IN_REVIEW, now
    memo.save(update_fields=["status", "updated_at"])
    _queue_review(version)
    return version


# ------------------------------------------------------------------------------ review


def memo_review_run(*, version_id: int, now: datetime | None = None) -> str:
    """Review one version (the task's body): "done" when this call wrote the review,
    "already" when a delivery before it had, "missing" when the version is gone.

    Two short transactions around the pure review, so no lock is held while it runs; the
    second rechecks under the lock, so two deliveries racing write one review.
    """
    from capstone.memo_review.review import review_memo

    with transaction.atomic():
        version = (
            MemoVersion.objects.select_for_update()
            .select_related("memo__capstone")
            .filter(pk=version_id)
            .first()
        )
        if version is None:
            return "missing"
        if version.review_status == MemoVersion.ReviewStatus.DONE:
            return "already"
        version.review_status = MemoVersion.ReviewStatus.RUNNING
        version.started_at = now or timezone.now()
        version.deliveries += 1
        version.save(update_fields=["review_status", "started_at", "deliveries"])
        brief, text = capstone_brief(version.memo.capstone), version.markdown

    review = review_memo(brief, text)

    with transaction.atomic():
        version = MemoVersion.objects.select_for_update().get(pk=version_id)
        if version.review_status == MemoVersion.ReviewStatus.DONE:
            return "already"
        version.review = review.as_dict()
        version.score, version.max_score = review.score, review.max_score
        version.review_status = MemoVersion.ReviewStatus.DONE
        version.review_error = ""
        version.reviewed_at = timezone.now()
        version.save(
            update_fields=[
                "review", "score", "max_score", "review_status", "review_error", "reviewed_at"
            ]
        )  # fmt: skip
    MEMO_REVIEW_LAG.observe((version.reviewed_at - version.created_at).total_seconds())
    return "done"


def memo_review_failed(*, version_id: int, reason: str) -> None:
    """Retries are spent: the version shows failed with the reason (the learner sees it,
    and the beat task leaves it alone; a new version or an instructor re-queues it)."""
    MemoVersion.objects.filter(pk=version_id).exclude(
        review_status=MemoVersion.ReviewStatus.DONE
    ).update(review_status=MemoVersion.ReviewStatus.FAILED, review_error=reason[:2000])


def memo_reviews_requeue_stuck(*, now: datetime | None = None, after=STUCK_AFTER) -> int:
    """Queue again every review left queued or running past `after` (a lost broker
    message, a worker that died before acking): the count re-queued. A version that is
    in fact still running is harmless to queue twice (the review is idempotent)."""
    now = now or timezone.now()
    stuck = list(
        MemoVersion.objects.filter(
            review_status__in=[MemoVersion.ReviewStatus.QUEUED, MemoVersion.ReviewStatus.RUNNING],
            queued_at__lt=now - after,
        ).values_list("pk", flat=True)
    )
    for pk in stuck:
        if review_enqueue(pk):
            MemoVersion.objects.filter(pk=pk).update(queued_at=now)
    if stuck:
        log.warning("re-queued %d stuck memo review(s): %s", len(stuck), stuck)
    return len(stuck)


# ---------------------------------------------------------------------------- decision


def _check_adjustments(review: dict, adjustments: list[dict]) -> list[dict]:
    limits = {c["code"]: float(c["max_points"]) for c in review.get("criteria", [])}
    clean = []
    for i, adj in enumerate(adjustments):
        code = adj.get("criterion")
        if code not in limits:
            raise InvalidInput(
                f"No criterion {code!r} in this review.", field=f"adjustments.{i}.criterion"
            )
        points = adj.get("points")
        if not isinstance(points, int | float) or not 0 <= points <= limits[code]:
            raise InvalidInput(
                f"Points for {code} must be between 0 and {limits[code]:g}.",
                field=f"adjustments.{i}.points",
            )
        comment = str(adj.get("comment") or "").strip()
        if not comment:
            raise InvalidInput("Say why the points changed.", field=f"adjustments.{i}.comment")
        clean.append({"criterion": code, "points": float(points), "comment": comment[:2000]})
    return clean


def memo_decider_check(*, instructor, memo: Memo) -> None:
    """Raises NotPermitted unless the user may decide on the memo: its learner's
    instructor (the memo gate, which keeps an instructor scoped to an LMS course to its
    members) or staff, and never its author (assess.selectors.duties). memo_decide asks
    it; the API asks it before reading a body, so a refusal is a 403, not a 400."""
    if not memo_is_taught_by(user=instructor, memo_id=memo.pk):
        raise NotPermitted("Only the course's instructors decide on its memos.")
    refuse_own_work(
        actor=instructor, subject_id=memo.capstone.learner_id, judgement=Judgement.MEMO_DECISION
    )


@transaction.atomic
def memo_decide(
    *,
    instructor,
    memo: Memo,
    decision: str,
    comment: str = "",
    adjustments: list[dict] | None = None,
    now: datetime | None = None,
) -> MemoDecision:
    """An instructor approves the latest reviewed version or asks for changes, adjusting
    any criterion with a comment. Not on a version still in review, nor on a memo already
    approved (Conflict): an approval is what certification will stand on. Who may
    decide is memo_decider_check's rule."""
    memo_decider_check(instructor=instructor, memo=memo)
    if decision not in MemoDecision.Decision.values:
        raise InvalidInput("Decide approve or request_changes.", field="decision")
    memo = Memo.objects.select_for_update().get(pk=memo.pk)
    if memo.status == Memo.Status.APPROVED:
        raise Conflict("This memo is approved already; an approval is final.")
    version = memo.versions.order_by("-number").first()
    if version is None or version.review_status != MemoVersion.ReviewStatus.DONE:
        raise Conflict("The latest version has no finished review yet.")
    now = now or timezone.now()
    made = MemoDecision.objects.create(
        memo=memo,
        version=version,
        instructor=instructor,
        decision=decision,
        comment=(comment or "").strip()[:5000],
        adjustments=_check_adjustments(version.review or {}, adjustments or []),
        created_at=now,
    )
    memo.status = (
        Memo.Status.APPROVED
        if decision == MemoDecision.Decision.APPROVE
        else Memo.Status.CHANGES_REQUESTED
    )
    memo.updated_at = now
    memo.save(update_fields=["status", "updated_at"])
    if decision == MemoDecision.Decision.APPROVE:
        progress_recorded_on_commit(user_id=memo.capstone.learner_id, reason="memo")
    return made


def adjusted_score(version: MemoVersion, decision: MemoDecision | None) -> float | None:
    """The review's score with the decision's adjustments applied (None before review)."""
    if version.review is None:
        return None
    points = {c["code"]: float(c["points"]) for c in version.review.get("criteria", [])}
    if decision is not None and decision.version_id == version.pk:
        points.update({a["criterion"]: a["points"] for a in decision.adjustments})
    return sum(points.values())
