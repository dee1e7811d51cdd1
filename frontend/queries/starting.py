"""Whether the user may start each quiz now, and if not why and from when: the quiz
list's Eligibility column and the start page shown before any timed or counted attempt.

The decisions are attempt_start's own rules (assess.services.attempts: the draft,
window and cooldown checks, the attempt limit, the certification exam's lesson-mastery
gate, email confirmation), read without a lock and without starting anything; the
service decides again under its lock when the learner presses Start.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils import timezone

from accounts.selectors import email_confirmed
from assess.models import Attempt, Extension, Quiz
from assess.services.attempts import CONFIRMED_MODES, cooldown_until
from certify import selectors as certify_selectors
from certify.selectors import ExamGate


class State:
    START = "start"
    RESUME = "resume"
    WAIT = "wait"  # opens later, or a cooldown runs: next_at says when
    USED_UP = "used_up"
    CLOSED = "closed"
    DRAFT = "draft"
    MASTERY = "mastery"  # a certification exam before its track's lessons are mastered
    CONFIRM = "confirm"  # an unconfirmed sign-up before an exam or a certification


@dataclass(frozen=True)
class Eligibility:
    quiz: Quiz
    state: str
    reason: str  # in words, for a page; "" when it may start now
    used: int  # attempts started, the open one included
    allowed: int | None  # None: unlimited
    next_at: datetime | None  # when a start is allowed again (State.WAIT)
    closes_at: datetime | None  # the user's own close (an extension's later one included)
    extension: Extension | None
    open_attempt: Attempt | None
    gate: ExamGate | None

    @property
    def can_start(self) -> bool:
        return self.state in (State.START, State.RESUME)

    @property
    def needs_start_page(self) -> bool:
        """A timed or counted attempt, or one that must wait: Start leads to the start
        page first, which says the rules before anything begins."""
        q = self.quiz
        return bool(
            q.time_limit
            or q.attempts_allowed
            or q.cooldown
            or q.mode in CONFIRMED_MODES
            or self.gate is not None
        )

    @property
    def time_limit(self) -> timedelta | None:
        return self.quiz.time_limit

    @property
    def extra_time(self) -> timedelta | None:
        return self.extension.extra_time if self.extension else None

    @property
    def left(self) -> int | None:
        return None if self.allowed is None else max(self.allowed - self.used, 0)


def _decide(quiz, attempts, extension, gate, confirmed, now) -> tuple[str, str, datetime | None]:
    """(state, reason, next_at), checked in attempt_start's order."""
    if quiz.status != Quiz.Status.PUBLISHED:
        return State.DRAFT, "A draft: it can be started once it is published.", None
    if quiz.mode in CONFIRMED_MODES and not confirmed:
        return State.CONFIRM, "Confirm your email address first.", None
    if quiz.opens_at and now < quiz.opens_at:
        return State.WAIT, "Not open yet.", quiz.opens_at
    closes = quiz.closes_at_for(extension)
    if closes and now >= closes:
        return State.CLOSED, "Closed: it takes no more attempts.", None
    current = next((a for a in attempts if a.is_open and not a.past_deadline(now)), None)
    if current is not None:
        return State.RESUME, "", None
    until = cooldown_until(quiz, attempts)
    lapsed = [a.deadline for a in attempts if a.is_open and a.deadline]  # ends at its deadline
    if quiz.cooldown and lapsed:
        until = max(filter(None, [until, max(lapsed) + quiz.cooldown]))
    if until is not None and now < until:
        return State.WAIT, "Waiting out the cooldown since your last attempt.", until
    if gate is not None and gate.missing:
        n = len(gate.missing)
        return State.MASTERY, f"Master {n} lesson{'s' if n != 1 else ''} of the track first.", None
    if quiz.attempts_allowed is not None and len(attempts) >= quiz.attempts_allowed:
        return State.USED_UP, f"All {quiz.attempts_allowed} attempts used.", None
    return State.START, "", None


def eligibilities(*, user, quizzes: Sequence[Quiz], now: datetime | None = None) -> dict:
    """{quiz id: Eligibility} for the user: at most five queries whatever the number of
    quizzes (the user's attempts on them, their extensions, the track exams' gates, and
    the email check)."""
    now = now or timezone.now()
    ids = [q.pk for q in quizzes]
    if not ids:
        return {}
    attempts: dict[int, list[Attempt]] = defaultdict(list)
    for attempt in Attempt.objects.filter(learner=user, quiz_id__in=ids).order_by("number"):
        attempts[attempt.quiz_id].append(attempt)
    extensions = {e.quiz_id: e for e in Extension.objects.filter(learner=user, quiz_id__in=ids)}
    certification = [q.pk for q in quizzes if q.mode == Quiz.Mode.CERTIFICATION]
    gates = certify_selectors.exam_gates(quiz_ids=certification, learner_id=user.pk)
    confirmed = (
        email_confirmed(user=user) if any(q.mode in CONFIRMED_MODES for q in quizzes) else True
    )
    out = {}
    for quiz in quizzes:
        mine, extension, gate = attempts[quiz.pk], extensions.get(quiz.pk), gates.get(quiz.pk)
        state, reason, next_at = _decide(quiz, mine, extension, gate, confirmed, now)
        out[quiz.pk] = Eligibility(
            quiz=quiz,
            state=state,
            reason=reason,
            used=len(mine),
            allowed=quiz.attempts_allowed,
            next_at=next_at,
            closes_at=quiz.closes_at_for(extension),
            extension=extension,
            open_attempt=next((a for a in mine if a.is_open), None),
            gate=gate,
        )
    return out


@dataclass(frozen=True)
class StartPage:
    eligibility: Eligibility
    questions: int
    cell: certify_selectors.Cell | None  # a track exam's requirements, met and missing


def start_page(*, user, quiz: Quiz, now: datetime | None = None) -> StartPage:
    """The start page of one quiz the user may see (the caller passed the quiz gate)."""
    now = now or timezone.now()
    eligibility = eligibilities(user=user, quizzes=[quiz], now=now)[quiz.pk]
    cell = None
    if eligibility.gate is not None:
        cell = certify_selectors.standing_for(user=user, track=eligibility.gate.track, now=now)
    return StartPage(eligibility=eligibility, questions=quiz.slots.count(), cell=cell)
