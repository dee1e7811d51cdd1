"""Starting, finishing and expiring attempts.

Every state change locks the attempt row (select_for_update inside one transaction), so
a finish racing a submission or another finish is serialised and only one can win.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.db import transaction
from django.utils import timezone

from accounts.selectors import email_confirmed
from api_common.rows import ctes_take_writes, insert_objects, inserted
from api_common.service_errors import Conflict, NotPermitted
from assess.models import Attempt, Extension, Question, Quiz, Slot
from assess.scoring import Rules, attempt_score
from assess.selectors.access import extension_of
from assess.selectors.attempt_rows import active_rows
from assess.selectors.locked import (
    attempt_insert_sharing_quiz,
    attempt_locked,
    attempts_locked,
    quiz_with_slots,
)
from assess.selectors.quiz_rows import StartFacts
from assess.services.drawn_variants import (
    drawn_claim,
    drawn_questions_store,
    pooled,
    question_from_drawn,
)
from assess.services.fresh_variants import fresh_questions
from assess.services.mastery import mastery_release_locked
from assess.services.questions import question_build
from assess.signals import attempt_starting


def attempt_deadline(
    quiz: Quiz, started_at: datetime, extension: Extension | None
) -> datetime | None:
    """The time limit (plus the learner's extra time) from the start, but never past
    the learner's close (their extension's later close, else the quiz's)."""
    ends = []
    if quiz.time_limit:
        extra = extension.extra_time if extension is not None and extension.extra_time else None
        ends.append(started_at + quiz.time_limit + (extra or timedelta(0)))
    closes = quiz.closes_at_for(extension)
    if closes:
        ends.append(closes)
    return min(ends) if ends else None


def moment_words(moment: datetime) -> str:
    """A time as the messages say it, "Fri 11 Dec 2026, 08:38 UTC", never an ISO
    timestamp: these reasons are shown on pages (which repeat the time in the reader's
    own zone where they can) as much as in the API's `detail`."""
    return timezone.localtime(moment, UTC).strftime("%a %-d %b %Y, %H:%M UTC")


def cooldown_until(quiz: Quiz, earlier) -> datetime | None:
    """When the quiz's cooldown since the learner's last closed attempt ends (None: no
    cooldown, or no closed attempt). `earlier`: the learner's attempts on the quiz. The
    one rule, for the start below and for the pages that say when the next may start."""
    if not quiz.cooldown:
        return None
    ends = [
        a.finished_at
        for a in earlier
        if a.status in (Attempt.Status.FINISHED, Attempt.Status.EXPIRED) and a.finished_at
    ]
    last_end = max(ends, default=None)
    return None if last_end is None else last_end + quiz.cooldown


def _check_cooldown(quiz: Quiz, earlier: list[Attempt], now: datetime) -> None:
    """Conflict while the quiz's cooldown since the learner's last closed attempt runs.
    `earlier`: the learner's attempts on the quiz, read under the start's lock after any
    open one is resumed or expired (an attempt expired just now ends at its deadline,
    and counts)."""
    until = cooldown_until(quiz, earlier)
    if until is not None and now < until:
        raise Conflict(f"You may take this quiz again from {moment_words(until)}.")


# What an account made by sign-up hears until its email address is confirmed.
UNCONFIRMED = (
    "Confirm your email address before you start an exam or a certification: follow "
    "the link we emailed you (your account's email page sends it again). Practice is "
    "open meanwhile."
)
CONFIRMED_MODES = (Quiz.Mode.EXAM, Quiz.Mode.CERTIFICATION)


def _check_confirmed(quiz: Quiz, learner, facts: StartFacts | None) -> None:
    """NotPermitted (403) when an unconfirmed sign-up would start an exam or a
    certification; practice, lesson practice and every other account pass. The one rule,
    for the page, the API and any other caller of attempt_start."""
    if quiz.mode not in CONFIRMED_MODES:
        return
    confirmed = facts.confirmed if facts is not None else email_confirmed(user=learner)
    if not confirmed:
        raise NotPermitted(UNCONFIRMED)


def _check_startable(quiz: Quiz, extension: Extension | None, now: datetime) -> None:
    """Conflict unless the quiz takes a new attempt now: published (a draft is for its
    instructors to edit and preview, never to start, theirs included: an attempt would
    freeze it), opened, and not closed for this learner."""
    if quiz.status != Quiz.Status.PUBLISHED:
        raise Conflict("This quiz is a draft: it can be started once it is published.")
    if quiz.opens_at and now < quiz.opens_at:
        raise Conflict(f"This quiz opens at {moment_words(quiz.opens_at)}.")
    closes = quiz.closes_at_for(extension)
    if closes and now >= closes:
        raise Conflict(f"This quiz closed at {moment_words(closes)}.")


def _slots_after_insert(
    *, quiz: Quiz, attempt: Attempt, extension, now: datetime
) -> tuple[Quiz, list[Slot]]:
    """(quiz, slots): the quiz's slots, read with the quiz row itself once the attempt
    row is in and the quiz's key-share lock held (both taken by one statement:
    selectors.locked.attempt_insert_sharing_quiz).

    The check before the transaction read a quiz that an edit, an unpublish or a close
    (assess.services.quizzes, which lock the quiz row FOR UPDATE and then count its
    attempts) may have changed since. The lock keeps any such change from committing
    from then until this transaction does, and one that committed first is seen: the
    row read here is the one the attempt will live under, checked again (Conflict rolls
    the attempt back), and the deadline recomputed if the dates moved. One query: the
    slots with the quiz joined to them (selectors.locked.quiz_with_slots;
    tests/services/test_quiz_lifecycle_races.py).
    """
    fresh, slots = quiz_with_slots(pk=quiz.pk)
    _check_startable(fresh, extension, now)
    deadline = attempt_deadline(fresh, now, extension)
    if deadline != attempt.deadline:
        attempt.deadline = deadline
        attempt.save(update_fields=["deadline"])
    return fresh, slots


def attempt_start(
    *, quiz: Quiz, learner, now: datetime | None = None, facts: StartFacts | None = None
) -> tuple[Attempt, bool]:
    """(attempt, created). An open attempt still in time is resumed rather than doubled;
    one past its deadline is expired first. Raises Conflict when the quiz is not open or
    the learner's attempts are used up. Two racing starts open one attempt (the database
    allows one open attempt per learner and quiz): the loser resumes the winner's.
    Whether the learner may take the quiz at all is the selector's gate
    (quiz_get_for_user), which the caller has passed. An account made by sign-up whose
    email is not confirmed yet may not start an exam or a certification (NotPermitted,
    a 403).

    The learner's extension (assess.services.extensions), read once, gives them a later
    close and extra time on the time limit.

    A quiz with a cooldown refuses a new attempt (Conflict, naming when) until that long
    after the learner's last attempt ended. A track's certification exam refuses a new
    attempt (MasteryRequired, a 409 `lesson_mastery_required`) until the learner has
    mastered the track's lessons; an open one is resumed whatever mastery did since. A
    certification attempt draws only variants the learner has never been shown
    (fresh_variants).

    Queries do not grow with the number of questions: the questions are one bulk insert
    (and, for a certification, one read of what the learner has seen). `facts`, the
    learner's confirmation and extension as the start's gate read them with the quiz
    (selectors.quiz_get_for_start), spare their two reads.
    """
    now = now or timezone.now()
    if facts is not None and facts.learner_id != learner.pk:
        raise ValueError("These start facts were read for another learner.")
    if quiz.adaptive:
        raise Conflict("Lesson practice is started from its lesson.")
    _check_confirmed(quiz, learner, facts)
    # The one read of the learner's extension: their close and their time limit.
    extension = facts.extension if facts is not None else extension_of(quiz=quiz, learner=learner)
    _check_startable(quiz, extension, now)
    with transaction.atomic():
        # Every attempt of the learner on the quiz, locked: a second start (another tab)
        # waits here, then sees this one's attempt.
        earlier = attempts_locked(quiz_id=quiz.pk, learner_id=learner.pk)
        current = next((a for a in earlier if a.status == Attempt.Status.OPEN), None)
        if current is not None:
            if not current.past_deadline(now):
                current.quiz = quiz
                return current, False
            current.quiz = quiz
            _close(current, Attempt.Status.EXPIRED, now)
        _check_cooldown(quiz, earlier, now)
        attempt_starting.send(sender="assess", quiz=quiz, learner=learner)
        used = len(earlier)
        if quiz.attempts_allowed is not None and used >= quiz.attempts_allowed:
            raise Conflict(
                f"You have used all {quiz.attempts_allowed} attempt(s) allowed on this quiz."
            )
        values = {
            "quiz_id": quiz.pk,
            "learner_id": learner.pk,
            "number": used + 1,
            "status": Attempt.Status.OPEN,
            "started_at": now,
            "deadline": attempt_deadline(quiz, now, extension),
            "finished_at": None,
            "score": None,
            "points": None,
            "mastery_applied_at": None,
        }
        # A racing first start (no row to lock yet) that committed first breaks a unique
        # constraint (one open attempt; the attempt's number): nothing is inserted, and
        # this start resumes that one.
        pk = attempt_insert_sharing_quiz(values)
        if pk is None:
            winner = Attempt.objects.filter(
                quiz=quiz, learner=learner, status=Attempt.Status.OPEN
            ).first()
            if winner is None:
                raise Conflict(
                    "Another attempt on this quiz was started and closed at the same time."
                )
            winner.quiz = quiz
            return winner, False
        attempt = inserted(Attempt, pk, values)
        attempt.learner = learner
        fresh, slots = _slots_after_insert(quiz=quiz, attempt=attempt, extension=extension, now=now)
        attempt.quiz = fresh
        if fresh.mode == Quiz.Mode.CERTIFICATION:
            questions = fresh_questions(attempt=attempt, slots=slots)
            insert_objects(questions, key="order")
        else:
            questions = _questions_stored(attempt, slots)
    # The questions as stored, in order: the caller shows them without reading them again.
    attempt.started_questions = questions
    return attempt, True


def _questions_stored(attempt: Attempt, slots: list[Slot]) -> list[Question]:
    """The new attempt's questions, stored: one variant drawn ahead per slot where the
    quiz keeps a pool and it has one waiting (services.drawn_variants), else drawn now.
    On PostgreSQL the pool's variants become questions in the statement that claims them
    (drawn_questions_store); on SQLite they are claimed, built and inserted in turn."""
    stored, drawn = {}, {}
    if pooled(attempt.quiz):
        if ctes_take_writes():
            stored = drawn_questions_store(attempt=attempt, slots=slots)
        else:
            drawn = drawn_claim(quiz_id=attempt.quiz.pk)
    questions, new = [], []
    for order, slot in enumerate(slots, start=1):
        question = stored.get(slot.pk)
        if question is None:
            question = question_from_drawn(
                attempt=attempt, slot=slot, order=order, drawn=drawn.get(slot.pk)
            ) or question_build(attempt=attempt, slot=slot, order=order, variant_number=0)
            new.append(question)
        questions.append(question)
    insert_objects(new, key="order")
    return questions


def _close(attempt: Attempt, status: str, now: datetime) -> None:
    """Score from the saved responses and close. The caller holds the row lock.

    An expired attempt ends at its deadline: every answer saved before it counts, and
    none can be saved after it (response_submit checks the deadline itself). When the
    learner may now see their grades, held answers reach mastery in the same transaction.
    """
    questions, responses, reveals = active_rows(attempt.pk)
    result = attempt_score(questions, responses, Rules.of(attempt.quiz))
    attempt.status = status
    attempt.finished_at = (
        min(now, attempt.deadline) if status == Attempt.Status.EXPIRED and attempt.deadline else now
    )
    attempt.score = result.score
    attempt.points = result.points
    # The release decides on the closed attempt as it is now (in memory); one UPDATE
    # stores the close and the release's stamp together.
    mastery_release_locked(attempt, now=now, questions=questions, responses=responses, save=False)
    attempt.save(update_fields=["status", "finished_at", "score", "points", "mastery_applied_at"])
    # What the close decided on, as it stands after it: the caller's review of the
    # attempt need not read it again.
    attempt.closed_rows = (questions, responses, reveals)


def attempt_finish(*, attempt: Attempt, now: datetime | None = None) -> Attempt:
    """Finish and score. A second finish raises Conflict; a finish after the deadline
    closes the attempt as expired, with the answers saved in time."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = attempt_locked(pk=attempt.pk)
        locked.quiz, locked.learner = attempt.quiz, attempt.learner
        if not locked.is_open:
            raise Conflict("This attempt is already finished.")
        status = Attempt.Status.EXPIRED if locked.past_deadline(now) else Attempt.Status.FINISHED
        _close(locked, status, now)
    return locked


def attempts_expire(*, now: datetime | None = None, quiz: Quiz | None = None) -> int:
    """Close every open attempt past its deadline (of one quiz, if given: a close ends
    its attempts at once); returns how many. Idempotent: each attempt is rechecked under
    its lock, so a concurrent finish or a second run is a no-op for it."""
    now = now or timezone.now()
    due = Attempt.objects.filter(status=Attempt.Status.OPEN, deadline__lte=now)
    if quiz is not None:
        due = due.filter(quiz=quiz)
    due = list(due.values_list("pk", flat=True))
    closed = 0
    for pk in due:
        with transaction.atomic():
            attempt = (
                Attempt.objects.select_for_update(of=("self",))
                .select_related("quiz")
                .filter(pk=pk, status=Attempt.Status.OPEN)
                .first()
            )
            if attempt is None or not attempt.past_deadline(now):
                continue
            _close(attempt, Attempt.Status.EXPIRED, now)
            closed += 1
    return closed
