"""Reads the pages need that assess.selectors does not offer yet.

Each function reads on behalf of `user` and gates exactly as the selectors do (own data
for learners, instructed courses for instructors, everything for staff): what the user
may not see raises DoesNotExist (a 404); a page only teachers may open raises
PermissionDenied. They live here only until the lead moves them into assess.selectors;
the views treat each as one selector call. Nothing here writes.
"""

from frontend.queries.attempts import (
    AttemptPage,
    PartView,
    QuestionPage,
    QuestionView,
    attempt_page,
    question_page,
    question_views,
)
from frontend.queries.hardware import Comparison, RooflinePage, accelerator_comparison, roofline
from frontend.queries.learning import (
    CoursePage,
    Dashboard,
    LessonMasteryRow,
    LessonPage,
    course_page,
    dashboard_for_user,
    lesson_page,
    lessons_mastery_for_user,
)
from frontend.queries.teaching import (
    ItemsPage,
    Preview,
    ProgressTable,
    TeachIndex,
    course_progress,
    items_page,
    teach_index,
    template_preview,
)

__all__ = [
    "AttemptPage",
    "Comparison",
    "CoursePage",
    "Dashboard",
    "ItemsPage",
    "LessonMasteryRow",
    "LessonPage",
    "PartView",
    "Preview",
    "ProgressTable",
    "QuestionPage",
    "QuestionView",
    "RooflinePage",
    "TeachIndex",
    "accelerator_comparison",
    "attempt_page",
    "course_page",
    "course_progress",
    "dashboard_for_user",
    "items_page",
    "lesson_page",
    "lessons_mastery_for_user",
    "question_page",
    "question_views",
    "roofline",
    "teach_index",
    "template_preview",
]
