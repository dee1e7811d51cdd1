"""Lesson practice in sessions of n questions, each with an end and a summary.

A session is the lesson's adaptive practice attempt with `practice_length` set: the
same attempt, questions, answers and feedback policy as open-ended practice
(questions.practice_question_add draws each question on the weakest skill), only
bounded. It ends when the learner finishes it (attempt_finish, like any attempt);
starting another session on the lesson finishes the open one first, so its summary
stays readable and the next one starts at question 1.

Nothing here touches mastery: evidence is still each part's first try, recorded as it
is answered (services.mastery), and a finish only stamps an immediate-feedback attempt.
"""

from __future__ import annotations

from contextlib import suppress
from datetime import datetime

from django.db import transaction
from django.db.models import Count

from api_common.service_errors import Conflict, InvalidInput
from assess.models import Attempt
from assess.services.attempts import attempt_finish
from assess.services.questions import PracticeQuestion, practice_question_add
from curricula.models import Lesson

DEFAULT_LENGTH = 5
LENGTHS = (5, 10, 20)  # what the lesson page offers
MAX_LENGTH = 50  # the database's bound (assess_attempt_practice_length)


def practice_session_start(
    *, learner, lesson: Lesson, length: int = DEFAULT_LENGTH, now: datetime | None = None
) -> PracticeQuestion:
    """A new session of `length` questions on the lesson, with its first question.

    The learner's open practice attempt on the lesson (a session or open-ended) is
    finished first, in the same transaction: should the new session be refused
    (NotPermitted: the course takes no self-enrolment; Conflict: no practice problems),
    the old one stays open."""
    if not 1 <= length <= MAX_LENGTH:
        raise InvalidInput(
            f"A practice session has 1 to {MAX_LENGTH} questions; {length} was asked.",
            field="questions",
        )
    with transaction.atomic():
        current = Attempt.objects.filter(
            quiz__practice_lesson=lesson, learner=learner, status=Attempt.Status.OPEN
        ).first()
        if current is not None:
            with suppress(Conflict):  # a racing request finished it first
                attempt_finish(attempt=current, now=now)
        return practice_question_add(learner=learner, lesson=lesson, session=length, now=now)


def practice_question_open_ended(
    *, learner, lesson: Lesson, now: datetime | None = None
) -> PracticeQuestion:
    """The API's lesson practice: open-ended, one question after another.

    It draws into the learner's open practice attempt on the lesson, a web session
    included (its questions count towards the session). A session that has drawn all
    its questions is finished first, its summary kept, and open-ended practice goes on
    in a new attempt: an API client that knows nothing of the web app's sessions is
    never told to finish one."""
    with transaction.atomic():
        current = (
            Attempt.objects.filter(
                quiz__practice_lesson=lesson, learner=learner, status=Attempt.Status.OPEN
            )
            .exclude(practice_length=None)
            .annotate(drawn=Count("questions"))
            .first()
        )
        if current is not None and current.drawn >= current.practice_length:
            with suppress(Conflict):  # a racing request finished it first
                attempt_finish(attempt=current, now=now)
        return practice_question_add(learner=learner, lesson=lesson, now=now)
