"""Quizzes: the one place a quiz is written. Its spec and rules (spec), who may write
it (guards), creating, editing and copying it (authoring), and its life from draft to
closed (lifecycle)."""

from assess.services.quizzes.authoring import (
    quiz_create,
    quiz_duplicate,
    quiz_edit_refusal,
    quiz_update,
)
from assess.services.quizzes.guards import check_quiz_author
from assess.services.quizzes.lifecycle import quiz_close, quiz_publish, quiz_unpublish
from assess.services.quizzes.spec import (
    MAX_ATTEMPTS,
    MAX_POINTS,
    MAX_POOL_ENTRIES,
    MAX_SLOTS,
    MAX_TIME_LIMIT,
    MAX_TRIES,
    QuizSpec,
    SlotSpec,
)

__all__ = [
    "MAX_ATTEMPTS",
    "MAX_POINTS",
    "MAX_POOL_ENTRIES",
    "MAX_SLOTS",
    "MAX_TIME_LIMIT",
    "MAX_TRIES",
    "QuizSpec",
    "SlotSpec",
    "check_quiz_author",
    "quiz_close",
    "quiz_create",
    "quiz_duplicate",
    "quiz_edit_refusal",
    "quiz_publish",
    "quiz_unpublish",
    "quiz_update",
]
