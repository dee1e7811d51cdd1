"""A learner asks for a part's answer: it shows, and the part takes no more tries."""

from __future__ import annotations

from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from api_common.service_errors import Conflict
from assess.models import Attempt, Question, Reveal
from assess.scoring import Rules
from assess.services.part_checks import check_not_drill, check_part_of, part_closed
from assess.services.questions import lock_open_attempt


def part_reveal(
    *, attempt: Attempt, question: Question, part: str, now: datetime | None = None
) -> bool:
    """Reveal one part of a question of the learner's open attempt; True when this call
    revealed it, False when it was revealed already (asking twice is harmless).

    Only with immediate feedback: an exam's answers wait for its grades (Conflict). A
    part already solved or out of tries shows its answer anyway; revealing it is a no-op
    that records nothing. The reveal is mastery-neutral: the part's first try, if any,
    already counted, and no later try can be stored.
    """
    now = now or timezone.now()
    check_part_of(attempt, question, part)
    check_not_drill(question)
    if attempt.quiz.feedback_deferred:
        raise Conflict("Answers of this quiz show when its feedback is released, not before.")
    if not question.active:
        raise Conflict("This question was replaced by a new variant.")
    with transaction.atomic():
        locked = lock_open_attempt(attempt, now)
        if Reveal.objects.filter(question=question, part=part).exists():
            return False
        rules = Rules.of(locked.quiz)
        if part_closed(question=question, part=part, rules=rules, revealed=False) is not None:
            return False  # solved or out of tries: its answer shows already
        try:
            with transaction.atomic():
                Reveal.objects.create(question=question, part=part, created_at=now)
        except IntegrityError:
            return False
    return True
