"""Assess REST endpoints: parse, call one selector or service, render. One module per
resource; what each operation promises a client is written in assess.api.docs."""

from assess.api.views.attempts import (
    AttemptDetailView,
    AttemptFinishView,
    AttemptResponsesView,
    HintView,
    NewVariantView,
    RevealView,
)
from assess.api.views.auth import TokenView
from assess.api.views.courses import (
    CourseEnrolmentDetailView,
    CourseEnrolmentsView,
    CourseEnrolView,
    LessonPracticeView,
    MyMasteryView,
)
from assess.api.views.drills import DrillActionView, DrillSubmitView
from assess.api.views.extensions import QuizExtensionDetailView, QuizExtensionsView
from assess.api.views.quizzes import (
    QuizAttemptsView,
    QuizCloseView,
    QuizDetailView,
    QuizItemsView,
    QuizListView,
    QuizPublishView,
    QuizUnpublishView,
)

__all__ = [
    "AttemptDetailView",
    "AttemptFinishView",
    "AttemptResponsesView",
    "HintView",
    "CourseEnrolView",
    "DrillActionView",
    "DrillSubmitView",
    "CourseEnrolmentDetailView",
    "CourseEnrolmentsView",
    "LessonPracticeView",
    "MyMasteryView",
    "NewVariantView",
    "QuizAttemptsView",
    "QuizCloseView",
    "QuizExtensionDetailView",
    "QuizExtensionsView",
    "QuizDetailView",
    "QuizItemsView",
    "QuizListView",
    "QuizPublishView",
    "QuizUnpublishView",
    "RevealView",
    "TokenView",
]
