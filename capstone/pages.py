"""What the capstone pages read, shaped for their templates.

Reads go through capstone.selectors, so the pages gate exactly as the API does: a
memo is its learner's and its course's instructors' (and staff's); for anyone else the
selector raises DoesNotExist, which the views turn into a 404. Nothing here writes.

A version's rubric row carries the instructor's adjustment beside the reviewer's points,
so the learner reads what the worker said and what the instructor changed, side by side.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.core.paginator import Page, Paginator

from assess.selectors.duties import is_own_work
from capstone import selectors as memo_selectors
from capstone.memo_review.memo import FIGURES, SECTIONS, parse_memo
from capstone.memo_review.memo_markdown import memo_html
from capstone.models import Capstone, Memo, MemoDecision, MemoVersion
from capstone.services import adjusted_score, capstone_brief, capstone_course
from problems.engine.render import render_markdown

QUEUE_PAGE_SIZE = 50
POLLING = (MemoVersion.ReviewStatus.QUEUED, MemoVersion.ReviewStatus.RUNNING)
_HEADING = re.compile(r"<(/?)h([1-5])\b")


def _demote(html: str) -> str:
    """Our own rendered HTML one heading level down, under the page's h1."""
    return _HEADING.sub(lambda m: f"<{m.group(1)}h{int(m.group(2)) + 1}", html)


def memo_skeleton() -> str:
    """The empty memo a learner starts from: every required section, and the key figures
    with the units the reviewer reads a bare number in."""
    body = "\n\n".join(f"## {name}\n" for name in SECTIONS if name != "Key figures")
    lines = "\n".join(f"- {f.label}: ... {f.unit_hint}".rstrip() for f in FIGURES)
    return f"{body}\n\n## Key figures\n\n{lines}\n"


# ------------------------------------------------------------------------------ learner


@dataclass(frozen=True)
class CapstonePage:
    capstone: Capstone | None
    brief_html: str
    memo: Memo | None
    versions: list[MemoVersion]


def capstone_page(*, user) -> CapstonePage:
    """The learner's brief and memo, or neither until they ask for a brief."""
    course = capstone_course()
    capstone = memo_selectors.capstone_for_learner(user=user, course_id=course.pk)
    if capstone is None:
        return CapstonePage(capstone=None, brief_html="", memo=None, versions=[])
    memo = memo_selectors.memo_for_learner(user=user, course_id=course.pk)
    versions = list(reversed(memo.versions.all())) if memo else []
    return CapstonePage(
        capstone=capstone,
        brief_html=_demote(render_markdown(capstone_brief(capstone).markdown())),
        memo=memo,
        versions=versions,
    )


@dataclass(frozen=True)
class WriteContext:
    memo: Memo | None
    latest: MemoVersion | None
    initial: str
    approved: bool


def write_context(*, user) -> WriteContext:
    """What the writing form starts from: the latest version's text or the skeleton."""
    course = capstone_course()
    memo = memo_selectors.memo_for_learner(user=user, course_id=course.pk)
    versions = list(memo.versions.all()) if memo else []
    latest = versions[-1] if versions else None
    return WriteContext(
        memo=memo,
        latest=latest,
        initial=latest.markdown if latest else memo_skeleton(),
        approved=bool(memo and memo.status == Memo.Status.APPROVED),
    )


@dataclass(frozen=True)
class Preview:
    html: str
    words: int
    missing: tuple[str, ...]
    figures_read: int
    figures_total: int


def memo_preview(text: str) -> Preview:
    """The memo as the review page will show it, and what the parser finds in it."""
    parsed = parse_memo(text)
    return Preview(
        html=memo_html(text),
        words=len(text.split()),
        missing=parsed.missing_sections(),
        figures_read=sum(1 for f in parsed.figures.values() if not f.error),
        figures_total=len(FIGURES),
    )


# ------------------------------------------------------------------------------- review


@dataclass(frozen=True)
class RubricRow:
    code: str
    title: str
    points: float
    max_points: float
    evidence: str
    comment: str
    misconception: str | None
    adjusted: float | None = None
    adjustment_comment: str = ""


@dataclass(frozen=True)
class VersionReview:
    version: MemoVersion
    rows: list[RubricRow]
    decision: MemoDecision | None  # the latest decision on this version
    adjusted_score: float | None
    memo_html: str

    @property
    def polling(self) -> bool:
        return self.version.review_status in POLLING

    @property
    def state(self) -> str:
        """Changes whenever the status line would: the poll answers 204 while it holds."""
        return f"{self.version.review_status}-{self.version.deliveries}"


@dataclass(frozen=True)
class MemoPage:
    memo: Memo
    versions: list[MemoVersion]
    decisions: list[MemoDecision]
    current: VersionReview
    is_learner: bool
    is_latest: bool


def _rows(version: MemoVersion, decision: MemoDecision | None) -> list[RubricRow]:
    adjusted = {}
    if decision is not None:
        adjusted = {a["criterion"]: a for a in decision.adjustments}
    rows = []
    for c in (version.review or {}).get("criteria", []):
        adj = adjusted.get(c["code"])
        rows.append(
            RubricRow(
                code=c["code"],
                title=c.get("title") or c["code"],
                points=float(c["points"]),
                max_points=float(c["max_points"]),
                evidence=c.get("evidence") or "",
                comment=c.get("comment") or "",
                misconception=c.get("misconception"),
                adjusted=adj["points"] if adj else None,
                adjustment_comment=adj["comment"] if adj else "",
            )
        )
    return rows


def version_review(memo: Memo, version: MemoVersion) -> VersionReview:
    """One version's review with the latest decision on it (decisions prefetched)."""
    on_version = [d for d in memo.decisions.all() if d.version_id == version.pk]
    decision = on_version[-1] if on_version else None
    return VersionReview(
        version=version,
        rows=_rows(version, decision),
        decision=decision,
        adjusted_score=adjusted_score(version, decision),
        memo_html=version.html,  # made at submission; deferred in the list: this one's only
    )


def _version(memo: Memo, number: int | None) -> MemoVersion:
    versions = list(memo.versions.all())
    if not versions:
        raise MemoVersion.DoesNotExist
    if number is None:
        return versions[-1]
    for v in versions:
        if v.number == number:
            return v
    raise MemoVersion.DoesNotExist


def memo_page(*, user, pk: int, number: int | None = None) -> MemoPage:
    """A version's review (the latest unless `number`), for the learner or an instructor."""
    memo = memo_selectors.memo_get_for_user(user=user, pk=pk)
    version = _version(memo, number)
    versions = list(memo.versions.all())
    return MemoPage(
        memo=memo,
        versions=list(reversed(versions)),
        decisions=list(reversed(memo.decisions.all())),
        current=version_review(memo, version),
        is_learner=memo.capstone.learner_id == user.pk,
        is_latest=version.pk == versions[-1].pk,
    )


def review_state(*, user, pk: int, number: int) -> VersionReview:
    memo = memo_selectors.memo_get_for_user(user=user, pk=pk)
    return version_review(memo, _version(memo, number))


# ---------------------------------------------------------------------------- teaching


@dataclass(frozen=True)
class QueueRow:
    memo: Memo
    latest: MemoVersion | None
    decided: MemoDecision | None


@dataclass(frozen=True)
class QueuePage:
    page: Page
    rows: list[QueueRow] = field(default_factory=list)


def memo_queue(*, user, page: str | int | None = 1) -> QueuePage:
    """The instructor's memos, those waiting for a decision first, a page at a time
    (versions and decisions prefetched: the query count does not grow with the rows)."""
    paginator = Paginator(memo_selectors.memo_queue_for_instructor(user=user), QUEUE_PAGE_SIZE)
    current = paginator.get_page(page)
    rows = []
    for memo in current.object_list:
        versions, decisions = list(memo.versions.all()), list(memo.decisions.all())
        rows.append(
            QueueRow(
                memo=memo,
                latest=versions[-1] if versions else None,
                decided=decisions[-1] if decisions else None,
            )
        )
    return QueuePage(page=current, rows=rows)


@dataclass(frozen=True)
class DecisionPage:
    memo: Memo
    versions: list[MemoVersion]
    decisions: list[MemoDecision]
    current: VersionReview | None
    own: bool  # the reader wrote it: no decision form (assess.selectors.duties)


def decision_page(*, user, pk: int) -> DecisionPage:
    """The latest version's review and the memo's decisions, for its instructors (404
    for anyone else, the memo's own learner included)."""
    memo = memo_selectors.memo_get_for_instructor(user=user, pk=pk)
    versions = list(memo.versions.all())
    return DecisionPage(
        memo=memo,
        versions=list(reversed(versions)),
        decisions=list(reversed(memo.decisions.all())),
        current=version_review(memo, versions[-1]) if versions else None,
        own=is_own_work(actor=user, subject_id=memo.capstone.learner_id),
    )
