"""Reads on a user's behalf, and the only gate to another learner's data.

access: who may see which course, quiz, attempt and enrolment; review: an attempt as
the feedback policy lets its reader see it; mastery: skills and lessons as a learner
(or their instructor) may read them.
"""

from assess.selectors.access import (
    attempt_get_for_user,
    attempt_list_for_user,
    attempts_for_instructor,
    course_list_for_instructor,
    enrolled_course_ids,
    enrolments_for_instructor,
    extended_closes_for_user,
    extension_of,
    extensions_for_instructor,
    learners_of_course,
    question_get_for_attempt,
    quiz_get_for_instructor,
    quiz_get_for_user,
    quiz_list_for_user,
    user_can_manage_quiz,
    user_is_enrolled,
    user_is_instructor,
    user_is_teacher,
)
from assess.selectors.mastery import (
    LessonMastery,
    Mastery,
    SkillRow,
    evidence_sequences,
    lesson_masteries,
    mastery_for_user,
    skill_ps_for_user,
    skill_rows_for_user,
)
from assess.selectors.review import (
    AttemptReview,
    QuestionReview,
    attempt_review,
    question_review,
    question_reviews,
    solution_html,
    solution_markdown,
)

__all__ = [
    "AttemptReview",
    "LessonMastery",
    "Mastery",
    "QuestionReview",
    "SkillRow",
    "attempt_get_for_user",
    "attempt_list_for_user",
    "attempt_review",
    "attempts_for_instructor",
    "course_list_for_instructor",
    "enrolled_course_ids",
    "enrolments_for_instructor",
    "extension_of",
    "extensions_for_instructor",
    "evidence_sequences",
    "learners_of_course",
    "lesson_masteries",
    "mastery_for_user",
    "question_get_for_attempt",
    "question_review",
    "question_reviews",
    "extended_closes_for_user",
    "quiz_get_for_instructor",
    "quiz_get_for_user",
    "quiz_list_for_user",
    "skill_ps_for_user",
    "skill_rows_for_user",
    "solution_html",
    "solution_markdown",
    "user_can_manage_quiz",
    "user_is_enrolled",
    "user_is_instructor",
    "user_is_teacher",
]
