"""The request checks every per-part action (an answer's neighbours: a reveal, a hint)
makes before it locks anything: the question belongs to the attempt, the part exists."""

from __future__ import annotations

from assess.errors import InvalidInput
from assess.models import Attempt, Question


def check_question_of(attempt: Attempt, question: Question) -> None:
    if question.attempt_id != attempt.pk:
        raise InvalidInput("That question is not part of this attempt.", field="question")


def check_part_of(attempt: Attempt, question: Question, part: str) -> None:
    """InvalidInput (400, naming the field) for a foreign question or an unknown part."""
    check_question_of(attempt, question)
    if question.part(part) is None:
        names = ", ".join(p["name"] for p in question.answers)
        raise InvalidInput(
            f"Unknown part {part!r}; this question's parts are: {names}.", field="part"
        )
