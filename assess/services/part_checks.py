"""The checks every per-part action (an answer's neighbours: a reveal, a hint) makes:
before it locks anything, that the question belongs to the attempt and the part exists;
under the attempt's lock, whether the part still takes answers."""

from __future__ import annotations

from api_common.service_errors import Conflict, InvalidInput
from assess.models import Attempt, Question
from assess.policy import Closed, part_policy
from assess.scoring import Rules
from assess.skills import is_drill

DRILL_PARTS = (
    "An incident drill is answered as a whole: take actions through .../drill/actions/ and "
    "send the diagnosis through .../drill/submit/, not part by part."
)


def check_not_drill(question: Question) -> None:
    """Conflict for an incident drill's part: its parts are answered by one submission
    (assess.services.drills), never one by one, and are never revealed."""
    if is_drill(question.template_slug):
        raise Conflict(DRILL_PARTS)


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


def part_closed(*, question: Question, part: str, rules: Rules, revealed: bool) -> Closed | None:
    """Why the part takes no more answers (solved, revealed, out of tries), or None: the
    feedback policy's own rule, on its valid tries in stored order (the try limit counts
    the first ones). For an immediate-feedback quiz; the caller holds the attempt's lock."""
    tries = list(question.responses.filter(part=part, valid=True).order_by("created_at", "id"))
    policy = part_policy(
        name=part,
        tries=tries,
        revealed=revealed,
        rules=rules,
        over=False,
        grades=True,
        learner=True,
    )
    return policy.closed
