"""A learner asks for a hint: the next step of the question's worked solution.

Recorded (a Hint row, and the question's `hints` and `hinted_at` kept in step under the
attempt's lock), so the homework penalty and the mastery rule follow from what is stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from api_common.service_errors import Conflict
from assess.models import Attempt, Hint, Question
from assess.policy import closed_message, hints_offered
from assess.scoring import Rules
from assess.selectors.hints import question_hints
from assess.services.part_checks import check_part_of, part_closed
from assess.services.questions import lock_open_attempt
from problems.engine.hints import Hint as EngineHint

NO_HINTS = "This quiz offers no hints: exams and certifications are answered unaided."


@dataclass(frozen=True)
class HintShown:
    hint: EngineHint
    recorded: bool  # False: every hint was shown already; this is the last again


def hint_request(
    *, attempt: Attempt, question: Question, part: str, now: datetime | None = None
) -> HintShown:
    """Show the question's next hint, asked from `part` of the learner's open attempt.

    One sequence per question (its solution's steps serve every part); the hint is
    charged to the part it was asked from (the homework penalty). Asking after the last
    hint returns the last again and records nothing, so a double click costs nothing.
    Raises InvalidInput for a part the question lacks,
    Conflict when the quiz offers no hints (exams, certifications), the question was
    replaced, the part takes no more tries, or the attempt is finished or past its
    deadline.
    """
    now = now or timezone.now()
    check_part_of(attempt, question, part)
    if not hints_offered(quiz=attempt.quiz):
        raise Conflict(NO_HINTS)
    hints = question_hints(question)
    if not hints:
        raise Conflict("This question has no hints.")
    with transaction.atomic():
        locked = lock_open_attempt(attempt, now)
        current = Question.objects.select_for_update().get(pk=question.pk)
        if not current.active:
            raise Conflict("This question was replaced by a new variant.")
        rules = Rules.of(locked.quiz)
        if not rules.deferred:
            revealed = current.reveals.filter(part=part).exists()
            closed = part_closed(question=current, part=part, rules=rules, revealed=revealed)
            if closed is not None:
                raise Conflict(closed_message(closed, rules))
        shown = sum(int(n) for n in current.hints.values())
        if shown >= len(hints):
            return HintShown(hints[-1], recorded=False)
        Hint.objects.create(question=current, part=part, step=shown + 1, created_at=now)
        current.hints = {**current.hints, part: int(current.hints.get(part, 0)) + 1}
        current.hinted_at = current.hinted_at or now
        current.save(update_fields=["hints", "hinted_at"])
    question.hints, question.hinted_at = current.hints, current.hinted_at
    return HintShown(hints[shown], recorded=True)
