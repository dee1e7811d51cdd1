"""Attempts: as started, as reviewed, as listed, and the result of one answer."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api_common.representation import PlainRepresentation, represent_many
from assess.api.schema import NamedChoiceField
from assess.api.serializers.questions import QuestionSerializer, ReviewQuestionSerializer
from assess.api.serializers.quizzes import MODE_HELP
from assess.api.serializers.responses import ResponseResultSerializer
from assess.models import Attempt, Quiz

STATUS_HELP = (
    "`open` takes answers until its deadline; `finished` by the learner; `expired` "
    "closed at its deadline with the answers saved in time."
)
DEADLINE_HELP = (
    "When the attempt stops taking answers: the time limit or the quiz's close, "
    "whichever comes first; null for none."
)


class AttemptStartSerializer(PlainRepresentation, serializers.Serializer):
    id = serializers.IntegerField()
    quiz = serializers.IntegerField(source="quiz_id")
    mode = serializers.ChoiceField(
        choices=Quiz.Mode.choices, source="quiz.mode", help_text=MODE_HELP
    )
    number = serializers.IntegerField(help_text="The learner's attempt number on the quiz.")
    status = NamedChoiceField(
        enum_name="AttemptStatusEnum", choices=Attempt.Status.choices, help_text=STATUS_HELP
    )
    started_at = serializers.DateTimeField()
    deadline = serializers.DateTimeField(allow_null=True, help_text=DEADLINE_HELP)
    questions = serializers.SerializerMethodField()

    @extend_schema_field(QuestionSerializer(many=True))
    def get_questions(self, attempt) -> list[dict]:
        return represent_many(QuestionSerializer, self.context["questions"])


class AnswerResultSerializer(ResponseResultSerializer):
    """A stored answer, and its question as the learner may now see it (after a correct
    or last try the answer shows; an exam shows nothing until its grades are released)."""

    question_state = serializers.SerializerMethodField()

    @extend_schema_field(ReviewQuestionSerializer)
    def get_question_state(self, response) -> dict:
        return ReviewQuestionSerializer(self.context["review"], context=self.context).data

    def to_representation(self, response) -> dict:
        data = super().to_representation(response)  # the stored answer, written by hand
        data["question_state"] = self.get_question_state(response)
        return data


class AttemptReviewSerializer(PlainRepresentation, serializers.Serializer):
    id = serializers.IntegerField(source="attempt.id")
    quiz = serializers.IntegerField(source="attempt.quiz_id")
    title = serializers.CharField(source="attempt.quiz.title")
    mode = serializers.ChoiceField(
        choices=Quiz.Mode.choices, source="attempt.quiz.mode", help_text=MODE_HELP
    )
    number = serializers.IntegerField(source="attempt.number")
    status = NamedChoiceField(
        enum_name="AttemptStatusEnum",
        choices=Attempt.Status.choices,
        source="attempt.status",
        help_text=STATUS_HELP,
    )
    started_at = serializers.DateTimeField(source="attempt.started_at")
    deadline = serializers.DateTimeField(
        source="attempt.deadline", allow_null=True, help_text=DEADLINE_HELP
    )
    finished_at = serializers.DateTimeField(source="attempt.finished_at", allow_null=True)
    feedback_visible = serializers.BooleanField(
        source="visible",
        help_text="The reader may see grades now: always for immediate feedback; after the "
        "attempt (after_attempt) or the quiz's close (after_close) otherwise. Instructors "
        "and staff reading a learner's attempt always may.",
    )
    score = serializers.SerializerMethodField()
    points = serializers.SerializerMethodField()
    max_points = serializers.FloatField(source="score.max_points")
    passed = serializers.SerializerMethodField()
    pass_mark = serializers.FloatField(source="attempt.quiz.pass_mark")
    questions = serializers.SerializerMethodField()

    def _score(self, review):
        attempt = review.attempt
        return attempt.score if attempt.score is not None else review.score.score

    @extend_schema_field(
        serializers.FloatField(allow_null=True, help_text="0 to 1; null while grades hide.")
    )
    def get_score(self, review) -> float | None:
        return self._score(review) if review.visible else None

    @extend_schema_field(
        serializers.FloatField(allow_null=True, help_text="Points earned; null while hidden.")
    )
    def get_points(self, review) -> float | None:
        if not review.visible:
            return None
        attempt = review.attempt
        return attempt.points if attempt.points is not None else review.score.points

    @extend_schema_field(
        serializers.BooleanField(
            allow_null=True, help_text="Null while the attempt is open or grades hide."
        )
    )
    def get_passed(self, review) -> bool | None:
        if not review.visible or review.attempt.is_open:
            return None
        return self._score(review) >= review.attempt.quiz.pass_mark

    @extend_schema_field(ReviewQuestionSerializer(many=True))
    def get_questions(self, review) -> list[dict]:
        context = {**self.context, "visible": review.visible}
        return represent_many(ReviewQuestionSerializer, review.questions, context)


class AttemptSummarySerializer(serializers.ModelSerializer):
    learner = serializers.CharField(source="learner.get_username", read_only=True)
    status = NamedChoiceField(
        enum_name="AttemptStatusEnum",
        choices=Attempt.Status.choices,
        read_only=True,
        help_text=STATUS_HELP,
    )
    deadline = serializers.DateTimeField(read_only=True, allow_null=True, help_text=DEADLINE_HELP)
    finished_at = serializers.DateTimeField(read_only=True, allow_null=True)
    score = serializers.SerializerMethodField()
    passed = serializers.SerializerMethodField()

    class Meta:
        model = Attempt
        fields = ["id", "learner", "number", "status", "started_at", "deadline", "finished_at"]
        fields += ["score", "passed"]
        read_only_fields = fields

    def _visible(self, attempt) -> bool:
        return self.context["visible"](attempt)

    @extend_schema_field(
        serializers.FloatField(allow_null=True, help_text="0 to 1; null while grades hide.")
    )
    def get_score(self, attempt) -> float | None:
        return attempt.score if self._visible(attempt) else None

    @extend_schema_field(serializers.BooleanField(allow_null=True))
    def get_passed(self, attempt) -> bool | None:
        return attempt.passed if self._visible(attempt) else None
