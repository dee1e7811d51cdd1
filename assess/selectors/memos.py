"""Reads for capstone memos, with their one access gate: a memo is its learner's, and its
course's instructors' (and staff's; an instructor scoped to an LMS course only of that
LMS course's members: assess.selectors.access); anyone else gets DoesNotExist (a 404)."""

from __future__ import annotations

from django.db.models import Case, OuterRef, Prefetch, Q, QuerySet, Value, When

from assess.models import Capstone, Memo, MemoDecision, MemoVersion
from assess.selectors.access import _teaches_learner


def _memos(*, texts: bool = True) -> QuerySet[Memo]:
    """Memos with their versions and decisions; texts=False leaves each version's
    Markdown (up to 60,000 characters) unread, for lists. A version's stored HTML is
    never read here: a page reads the one version's it shows (`version.html`, one query)."""
    versions = MemoVersion.objects.order_by("number").defer("html")
    if not texts:
        versions = versions.defer("markdown")
    return Memo.objects.select_related("capstone__learner", "capstone__course").prefetch_related(
        Prefetch("versions", queryset=versions),
        Prefetch(
            "decisions",
            queryset=MemoDecision.objects.select_related("instructor", "version").order_by(
                "created_at", "pk"
            ),
        ),
    )


def _instructs(user) -> Q:
    """On Memo: memos whose learner the (non-staff) user teaches in the capstone's course."""
    return _teaches_learner(
        user, course=OuterRef("capstone__course_id"), learner=OuterRef("capstone__learner_id")
    )


def memo_get_for_user(*, user, pk: int) -> Memo:
    """The memo with its versions and decisions, if the user may read it."""
    qs = _memos()
    if not user.is_staff:
        qs = qs.filter(Q(capstone__learner=user) | _instructs(user))
    return qs.get(pk=pk)


def memo_get_for_instructor(*, user, pk: int) -> Memo:
    """The memo if the user instructs its course (or is staff); else DoesNotExist."""
    qs = _memos()
    if not user.is_staff:
        qs = qs.filter(_instructs(user))
    return qs.get(pk=pk)


def memo_queue_for_instructor(*, user) -> QuerySet[Memo]:
    """Memos of the courses the user instructs, those waiting for a decision first."""
    qs = _memos(texts=False)
    if not user.is_staff:
        qs = qs.filter(_instructs(user))
    waiting_first = Case(When(status=Memo.Status.IN_REVIEW, then=Value(0)), default=Value(1))
    return qs.order_by(waiting_first, "-updated_at", "pk")


def memo_list_for_user(*, user) -> QuerySet[Memo]:
    """Every memo the user may read (their own, their courses' learners', all for staff),
    those waiting for a decision first: a learner's own memo, an instructor's queue."""
    qs = _memos()
    if not user.is_staff:
        qs = qs.filter(Q(capstone__learner=user) | _instructs(user))
    waiting_first = Case(When(status=Memo.Status.IN_REVIEW, then=Value(0)), default=Value(1))
    return qs.order_by(waiting_first, "-updated_at", "pk")


def capstone_for_learner(*, user, course_id: int) -> Capstone | None:
    return Capstone.objects.filter(learner=user, course_id=course_id).first()


def memo_for_learner(*, user, course_id: int) -> Memo | None:
    return _memos().filter(capstone__learner=user, capstone__course_id=course_id).first()
