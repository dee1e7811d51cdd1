"""A learner's grade on a quiz: which closed attempt counts, by the quiz's rule.

Only attempts whose grades the feedback policy has released count (their mastery was
applied: the finish of an after_attempt quiz, the close of an after_close one), so a
grade leaves Burn-in (to an LMS gradebook) no earlier than the learner may see it.
"""

from __future__ import annotations

from assess.models import Attempt, Quiz


def counted_attempt(*, quiz: Quiz, learner_id: int) -> Attempt | None:
    """The attempt that is the learner's grade on the quiz, or None before any counts:
    the best score (the earlier on a tie) or the last closed, per quiz.counting_attempt."""
    released = Attempt.objects.filter(
        quiz=quiz,
        learner_id=learner_id,
        mastery_applied_at__isnull=False,
        score__isnull=False,
    ).exclude(status=Attempt.Status.OPEN)
    if quiz.counting_attempt == Quiz.Counting.LAST:
        return released.order_by("-finished_at", "-number").first()
    return released.order_by("-score", "finished_at", "number").first()
