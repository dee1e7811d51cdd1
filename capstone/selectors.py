"""Reads for capstone memos, with their one access gate: a memo is its learner's, and its
course's instructors' (and staff's; an instructor scoped to an LMS course only of that
LMS course's members: assess.selectors.access); anyone else gets DoesNotExist (a 404)."""

from __future__ import annotations

from django.db.models import Case, OuterRef, Prefetch, Q, QuerySet, Value, When

from assess.selectors.access import teaches_learner
from capstone.models import Capstone, Memo, MemoDecision, MemoVersion


def _memos(*, texts: bool = True) -> QuerySet[Memo]:
    """Memos with their versions and decisions; texts=False leaves each version's
    Markdown (up to 60,000 characters) and review unread, for lists. A version's stored
    HTML is never read here: a page reads the one version's it shows (`version.html`,
    one query)."""
    versions = MemoVersion.objects.order_by("number").defer("html")
    if not texts:
        versions = versions.defer("markdown", "review")
    return Memo.objects.select_related("capstone__learner", "capstone__course").prefetch_related(
        Prefetch("versions", queryset=versions),
        Prefetch(
            "decisions",
            # a decision shows its version's number: not its texts or review
            queryset=MemoDecision.objects.select_related("instructor", "version")
            .defer("version__markdown", "version__html", "version__review")
            .order_by("created_at", "pk"),
        ),
    )


def _instructs(user) -> Q:
    """On Memo: memos whose learner the (non-staff) user teaches in the capstone's course."""
    return teaches_learner(
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


def memo_versions_for_user(*, user, pk: int) -> QuerySet[MemoVersion]:
    """The memo's versions, oldest first, for whoever may read the memo (its gate:
    DoesNotExist, a 404, for anyone else): one version at a time for a client that does
    not want them all in one body."""
    memos = Memo.objects.all()
    if not user.is_staff:
        memos = memos.filter(Q(capstone__learner=user) | _instructs(user))
    memo = memos.only("pk").get(pk=pk)
    return MemoVersion.objects.filter(memo=memo).order_by("number")


def memo_is_taught_by(*, user, memo_id: int) -> bool:
    """The user reads the memo as its learner's instructor (or is staff): who may
    decide on it, the author aside (assess.selectors.duties). One query."""
    if user.is_staff:
        return Memo.objects.filter(pk=memo_id).exists()
    return Memo.objects.filter(_instructs(user), pk=memo_id).exists()


def memo_queue_for_instructor(*, user) -> QuerySet[Memo]:
    """Memos of the courses the user instructs, those waiting for a decision first; not
    their own (someone else decides on it: assess.selectors.duties)."""
    qs = _memos(texts=False).exclude(capstone__learner=user)
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
