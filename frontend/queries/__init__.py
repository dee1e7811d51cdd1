"""Reads the pages need, shaped for their templates.

Each function reads on behalf of `user` through assess.selectors (the access gates and
the one feedback policy) and gates exactly as they do: what the user may not see raises
DoesNotExist (a 404); a page only teachers may open raises PermissionDenied. The views
treat each as one selector call. Nothing here writes.
"""

from frontend.queries.attempts import (
    AttemptPage,
    PartView,
    QuestionPage,
    QuestionView,
    attempt_page,
    blank_parts,
    question_page,
    question_views,
    rules_note,
)
from frontend.queries.dashboard import Dashboard, dashboard_for_user
from frontend.queries.hardware import Comparison, RooflinePage, accelerator_comparison, roofline
from frontend.queries.learning import (
    CoursePage,
    LessonPage,
    LessonRow,
    course_page,
    lesson_page,
    lesson_rows_for_user,
)
from frontend.queries.practice import PracticePage, practice_page
from frontend.queries.progress import ProgressTable, course_progress, progress_csv
from frontend.queries.teaching import (
    ItemsPage,
    LearnersPage,
    Preview,
    TeachIndex,
    course_learners,
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
    "LearnersPage",
    "LessonPage",
    "LessonRow",
    "PartView",
    "PracticePage",
    "Preview",
    "ProgressTable",
    "QuestionPage",
    "QuestionView",
    "RooflinePage",
    "TeachIndex",
    "accelerator_comparison",
    "attempt_page",
    "blank_parts",
    "course_learners",
    "course_page",
    "course_progress",
    "dashboard_for_user",
    "items_page",
    "lesson_page",
    "lesson_rows_for_user",
    "practice_page",
    "progress_csv",
    "question_page",
    "question_views",
    "roofline",
    "rules_note",
    "teach_index",
    "template_preview",
]
