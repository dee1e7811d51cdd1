"""Shapes of the assess API, one module per resource; everything is importable from here."""

from assess.api.serializers.accounts import (
    EnrolmentInputSerializer,
    EnrolmentSerializer,
    TokenRequestSerializer,
    TokenSerializer,
)
from assess.api.serializers.attempts import (
    AnswerResultSerializer,
    AttemptReviewSerializer,
    AttemptStartSerializer,
    AttemptSummarySerializer,
)
from assess.api.serializers.extensions import (
    ExtensionInputSerializer,
    ExtensionSerializer,
)
from assess.api.serializers.hints import (
    HintInputSerializer,
    HintSerializer,
    QuestionHintsSerializer,
)
from assess.api.serializers.mastery import (
    ItemStatsSerializer,
    LessonMasterySerializer,
    MasterySerializer,
    MisconceptionCountSerializer,
    SkillMasterySerializer,
)
from assess.api.serializers.questions import (
    AnswerSerializer,
    PartSerializer,
    PartStatusSerializer,
    PracticeQuestionSerializer,
    QuestionSerializer,
    ReviewPartSerializer,
    ReviewQuestionSerializer,
)
from assess.api.serializers.quizzes import (
    QuizCreateSerializer,
    QuizSerializer,
    SlotInputSerializer,
    SlotSerializer,
)
from assess.api.serializers.responses import (
    ResponseInputSerializer,
    ResponseResultSerializer,
    RevealInputSerializer,
)

__all__ = [
    "AnswerResultSerializer",
    "AnswerSerializer",
    "AttemptReviewSerializer",
    "AttemptStartSerializer",
    "AttemptSummarySerializer",
    "EnrolmentInputSerializer",
    "EnrolmentSerializer",
    "ExtensionInputSerializer",
    "ExtensionSerializer",
    "ItemStatsSerializer",
    "LessonMasterySerializer",
    "MasterySerializer",
    "MisconceptionCountSerializer",
    "PartSerializer",
    "PartStatusSerializer",
    "PracticeQuestionSerializer",
    "QuestionSerializer",
    "QuizCreateSerializer",
    "QuizSerializer",
    "ResponseInputSerializer",
    "ResponseResultSerializer",
    "RevealInputSerializer",
    "HintInputSerializer",
    "HintSerializer",
    "QuestionHintsSerializer",
    "ReviewPartSerializer",
    "ReviewQuestionSerializer",
    "SkillMasterySerializer",
    "SlotInputSerializer",
    "SlotSerializer",
    "TokenRequestSerializer",
    "TokenSerializer",
]
