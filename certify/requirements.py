"""Whether a learner meets a track's requirements, and whether they may join its
rotation now. Pure: the selectors read the rows, these functions decide.

Requirements (all must hold):
- mastery: every skill of the track's lessons at or above the track's threshold of the
  learner's global per-skill BKT estimate (fed only by honest evidence);
- exam: a passed certification exam finished after the learner's latest certificate of
  the track (a renewal needs a new pass; an old pass is spent);
- memo: an approved capstone memo, where the track asks for one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from functools import cached_property


@dataclass(frozen=True)
class LessonSkills:
    slug: str
    title: str
    skills: tuple[str, ...]


@dataclass(frozen=True)
class TrackRules:
    slug: str
    title: str
    lessons: tuple[LessonSkills, ...]
    threshold: float
    pass_mark: float
    cooldown: timedelta | None
    requires_memo: bool

    @cached_property  # read for every person a readiness matrix or API evaluates
    def lesson_skill_sets(self) -> tuple[frozenset[str], ...]:
        return tuple(frozenset(lesson.skills) for lesson in self.lessons)

    @cached_property
    def skills(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for lesson in self.lessons:
            for skill in lesson.skills:
                seen.setdefault(skill, None)
        return tuple(seen)


@dataclass(frozen=True)
class ExamResult:
    attempt_id: int
    score: float  # 0..1
    finished_at: datetime
    # Its recorded decision (certify.services.exam_decisions), when there is one: the
    # rule ("ability" or "raw-score"), whether it passed and why, and on the ability
    # rule the ability, its SE and the cut. None: decided on the raw score here.
    passed: bool | None = None
    rule: str = ""
    reason: str = ""
    theta: float | None = None
    se: float | None = None
    cut: float | None = None

    def passes(self, pass_mark: float) -> bool:
        return self.score >= pass_mark if self.passed is None else self.passed


@dataclass(frozen=True)
class MemoApproval:
    memo_id: int
    version: int
    score: float | None
    max_score: float | None
    approved_at: datetime


@dataclass(frozen=True)
class Evidence:
    mastery: Mapping[str, float]
    # Closed certification attempts since the latest certificate, any order.
    exams: Sequence[ExamResult] = ()
    exam_open: bool = False
    memo: MemoApproval | None = None


@dataclass(frozen=True)
class Requirement:
    key: str  # "mastery", "exam", "memo"
    label: str
    met: bool
    detail: str


@dataclass(frozen=True)
class Readiness:
    track: TrackRules
    requirements: tuple[Requirement, ...]
    # Evidence.mastery as evaluated: held, not copied (600 copies a team's readiness), so
    # a caller does not change the mapping it passed while it keeps the readiness.
    estimates: Mapping[str, float] = field(hash=False)
    p_init: float  # what a skill without an estimate counts at
    passed_exam: ExamResult | None
    memo: MemoApproval | None
    next_step: str

    @cached_property
    def skills(self) -> tuple[tuple[str, float, bool], ...]:
        """(skill, P(mastered), at threshold) for each of the track's skills: built when
        read (a certificate's snapshot, the check API, the track page), not for each of
        the 600 standings a team's readiness evaluates and shows as counts."""
        threshold, get = self.track.threshold, self.estimates.get
        return tuple(
            (s, p, p >= threshold) for s in self.track.skills for p in [float(get(s, self.p_init))]
        )

    @property
    def met(self) -> bool:
        return all(r.met for r in self.requirements)

    @property
    def missing(self) -> tuple[Requirement, ...]:
        return tuple(r for r in self.requirements if not r.met)


def _date(moment: datetime) -> str:
    return moment.date().isoformat()


def _some(names: list[str], shown: int = 5) -> str:
    """The first few names and how many more: a reason read in a terminal or a page
    cell, not the whole list (Readiness.skills has that)."""
    head = ", ".join(names[:shown])
    return head if len(names) <= shown else f"{head} and {len(names) - shown} more"


def _moment(moment: datetime) -> str:
    """A time in words (UTC, as the service keeps it): "Fri 11 Dec 2026, 08:38 UTC". The
    pages show it again in the reader's own time zone (frontend/static/local-times.js)."""
    return moment.strftime("%a %-d %b %Y, %H:%M UTC")


def lessons_below(
    rules: TrackRules, mastery: Mapping[str, float], *, p_init: float
) -> tuple[LessonSkills, ...]:
    """The track's lessons with a skill below its threshold, in the track's order: what a
    learner must still master before the certification exam (the exam's gate) and what
    its start page names."""
    return tuple(
        lesson
        for lesson in rules.lessons
        if any(float(mastery.get(s, p_init)) < rules.threshold for s in lesson.skills)
    )


def _percent(fraction: float) -> str:
    return f"{fraction * 100:.0f}%"


def _retake_from(rules: TrackRules, exams: Sequence[ExamResult]) -> datetime | None:
    if not exams or not rules.cooldown:
        return None
    return max(e.finished_at for e in exams) + rules.cooldown


def evaluate(rules: TrackRules, evidence: Evidence, *, now: datetime, p_init: float) -> Readiness:
    """The requirements as met or missing, with what to do next. `p_init` stands for a
    skill the learner has no estimate of yet (the BKT prior)."""
    threshold, get = rules.threshold, evidence.mastery.get
    below = [s for s in rules.skills if not float(get(s, p_init)) >= threshold]
    total = len(rules.skills)
    mastery = Requirement(
        "mastery",
        # Prose a page prints: the estimate as a percentage, as every page shows it.
        f"Every skill of the track's lessons at a mastery estimate of {rules.threshold:.0%}"
        " or more",
        not below,
        f"{total - len(below)} of {total} skills mastered"
        + (f"; below the threshold: {_some(below)}" if below else ""),
    )
    passed = [e for e in evidence.exams if e.passes(rules.pass_mark)]
    best_pass = max(passed, key=lambda e: (e.score, e.finished_at), default=None)
    retake = _retake_from(rules, evidence.exams)
    if best_pass is not None and best_pass.rule == "ability":
        exam_detail = (
            f"passed on {_date(best_pass.finished_at)}: ability {best_pass.theta:.2f} "
            f"(SE {best_pass.se:.2f}) at or above the cut {best_pass.cut:.2f}"
        )
    elif best_pass is not None:
        exam_detail = f"passed with {_percent(best_pass.score)} on {_date(best_pass.finished_at)}"
    elif evidence.exam_open:
        exam_detail = "certification exam in progress"
    elif evidence.exams:
        last = max(evidence.exams, key=lambda e: e.finished_at)
        exam_detail = (
            f"certification exam not passed: {_percent(last.score)} on "
            f"{_date(last.finished_at)}, pass mark {_percent(rules.pass_mark)}"
        )
        if last.reason and (last.rule == "ability" or last.score >= rules.pass_mark):
            exam_detail = (
                f"certification exam not passed on {_date(last.finished_at)}: {last.reason}"
            )
        if retake and retake > now:
            exam_detail += f"; next attempt from {_moment(retake)}"
    else:
        exam_detail = "certification exam not taken"
    exam = Requirement(
        "exam",
        f"A passed certification exam (pass mark {_percent(rules.pass_mark)})",
        best_pass is not None,
        exam_detail,
    )
    requirements = [mastery, exam]
    if rules.requires_memo:
        memo = evidence.memo
        requirements.append(
            Requirement(
                "memo",
                "An approved capstone capacity memo",
                memo is not None,
                f"memo approved on {_date(memo.approved_at)}"
                if memo
                else "capstone memo not approved yet",
            )
        )
    return Readiness(
        track=rules,
        requirements=tuple(requirements),
        estimates=evidence.mastery,
        p_init=p_init,
        passed_exam=best_pass,
        memo=evidence.memo if rules.requires_memo else None,
        next_step=_next_step(rules, below, best_pass, evidence, retake, now),
    )


def _next_step(rules, below, best_pass, evidence, retake, now) -> str:
    if below:
        # The lesson with the most skills below the threshold, the first of equals (a
        # below skill is some lesson's, so there is one).
        below_set, lesson, count = set(below), None, 0
        for candidate, skills in zip(rules.lessons, rules.lesson_skill_sets, strict=True):
            mine = len(skills & below_set)
            if mine > count:
                lesson, count = candidate, mine
        return f"Practise “{lesson.title}”: {count} of its skills are below the threshold."
    if best_pass is None:
        if evidence.exam_open:
            return "Finish the certification exam you started."
        if retake and retake > now:
            return f"Retake the certification exam from {_moment(retake)}."
        return "Take the certification exam."
    if rules.requires_memo and evidence.memo is None:
        return "Write the capstone capacity memo and have it approved."
    return "Every requirement is met: the certificate is issued."


class Status(StrEnum):
    CERTIFIED = "certified"
    EXPIRED = "expired"
    REVOKED = "revoked"
    IN_PROGRESS = "in_progress"


@dataclass(frozen=True)
class CertificateState:
    id: str
    state: str  # valid, expired, revoked (as of now)
    issued_at: datetime
    expires_at: datetime
    revoked_at: datetime | None
    revoke_reason: str


@dataclass(frozen=True)
class Standing:
    """May this person join the track's rotation now, and why (not)."""

    certified: bool
    status: Status
    until: datetime | None
    reason: str
    readiness: Readiness
    certificate: CertificateState | None


def standing(readiness: Readiness, latest: CertificateState | None) -> Standing:
    """Combine the latest certificate with the requirements. A valid certificate admits;
    otherwise the reason says what ended the last one and what is still missing."""
    if latest is not None and latest.state == "valid":
        return Standing(
            True,
            Status.CERTIFIED,
            latest.expires_at,
            f"Certified until {_date(latest.expires_at)}.",
            readiness,
            latest,
        )
    missing = "; ".join(r.detail for r in readiness.missing)
    if latest is not None and latest.state == "revoked":
        when = _date(latest.revoked_at) if latest.revoked_at else "an unknown date"
        reason = f"Certificate revoked on {when}: {latest.revoke_reason or 'no reason given'}."
        status = Status.REVOKED
    elif latest is not None and latest.state == "expired":
        reason = f"Certificate expired on {_date(latest.expires_at)}."
        status = Status.EXPIRED
    else:
        reason, status = "Not certified.", Status.IN_PROGRESS
    if missing:
        reason += f" Missing: {missing}."
    return Standing(False, status, None, reason, readiness, latest)
