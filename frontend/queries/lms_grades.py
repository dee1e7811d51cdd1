"""The LMS grades page's read: a quiz's passback rows (lti.models.ScoreSync) and their
counts, for the quiz's instructors and staff only."""

from __future__ import annotations

from dataclasses import dataclass

from assess import selectors
from assess.models import Quiz
from lti import selectors as lti_selectors
from lti.models import ScoreSync


@dataclass(frozen=True)
class LmsGradesPage:
    quiz: Quiz
    rows: list[ScoreSync]
    counts: dict[str, int]


def lms_grades_page(*, user, pk: int) -> LmsGradesPage:
    """The quiz's LMS scores and their counts (DoesNotExist, a 404, for anyone but the
    quiz's instructors and staff)."""
    quiz = selectors.quiz_get_for_instructor(user=user, pk=pk)
    return LmsGradesPage(
        quiz=quiz,
        rows=list(lti_selectors.score_syncs_for_quiz(user=user, quiz=quiz)),
        counts=lti_selectors.score_sync_counts(user=user, quiz=quiz),
    )
