"""Shapes of the assess API. Question payloads are built from whitelisted fields only:
a part's value never leaves through them, nor does a seed or a parameter."""

from __future__ import annotations

from datetime import timedelta

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from assess.models import Attempt, Quiz
from assess.services.quizzes import QuizSpec, SlotSpec

# ------------------------------------------------------------------------------- quizzes


class SlotSerializer(serializers.Serializer):
    order = serializers.IntegerField(read_only=True)
    points = serializers.IntegerField(min_value=1, default=1)
    templates = serializers.ListField(child=serializers.CharField(max_length=64), min_length=1)


class QuizSerializer(serializers.ModelSerializer):
    course = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    lessons = serializers.SlugRelatedField(slug_field="slug", many=True, read_only=True)
    time_limit_minutes = serializers.SerializerMethodField()
    slots = SlotSerializer(many=True, read_only=True)

    class Meta:
        model = Quiz
        fields = [
            "id",
            "title",
            "mode",
            "course",
            "lessons",
            "time_limit_minutes",
            "attempts_allowed",
            "opens_at",
            "closes_at",
            "feedback",
            "pass_mark",
            "slots",
        ]

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_time_limit_minutes(self, quiz: Quiz) -> float | None:
        return quiz.time_limit.total_seconds() / 60 if quiz.time_limit else None


class QuizCreateSerializer(serializers.Serializer):
    title = serializers.CharField(max_length=200)
    mode = serializers.ChoiceField(choices=Quiz.Mode.choices)
    slots = SlotSerializer(many=True, allow_empty=False)
    course = serializers.SlugField(required=False, allow_null=True)
    lessons = serializers.ListField(child=serializers.SlugField(), required=False, default=list)
    time_limit_minutes = serializers.IntegerField(min_value=1, required=False, allow_null=True)
    attempts_allowed = serializers.IntegerField(min_value=1, required=False, allow_null=True)
    feedback = serializers.ChoiceField(
        choices=Quiz.Feedback.choices,
        required=False,
        help_text="Default: immediately for practice and homework, after_attempt otherwise.",
    )
    opens_at = serializers.DateTimeField(required=False, allow_null=True)
    closes_at = serializers.DateTimeField(required=False, allow_null=True)
    pass_mark = serializers.FloatField(min_value=0.0, max_value=1.0, default=0.5)

    def to_spec(self) -> QuizSpec:
        d = self.validated_data
        minutes = d.get("time_limit_minutes")
        return QuizSpec(
            title=d["title"],
            mode=d["mode"],
            slots=[SlotSpec(templates=s["templates"], points=s["points"]) for s in d["slots"]],
            course_slug=d.get("course"),
            lesson_slugs=d.get("lessons", []),
            time_limit=timedelta(minutes=minutes) if minutes else None,
            attempts_allowed=d.get("attempts_allowed"),
            feedback=d.get("feedback"),
            opens_at=d.get("opens_at"),
            closes_at=d.get("closes_at"),
            pass_mark=d["pass_mark"],
        )


# ----------------------------------------------------------------------------- questions


class PartSerializer(serializers.Serializer):
    """What a learner needs to answer a part: never its value."""

    name = serializers.CharField()
    label = serializers.CharField()
    unit = serializers.CharField()
    kind = serializers.ChoiceField(choices=["numeric", "integer", "choice"])
    choices = serializers.ListField(
        child=serializers.CharField(), help_text="The options of a choice part; else empty."
    )


class QuestionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    order = serializers.IntegerField()
    statement_html = serializers.CharField()
    parts = serializers.SerializerMethodField()

    @extend_schema_field(PartSerializer(many=True))
    def get_parts(self, question) -> list[dict]:
        return PartSerializer(question.answers, many=True).data


class AttemptStartSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    quiz = serializers.IntegerField(source="quiz_id")
    mode = serializers.CharField(source="quiz.mode")
    number = serializers.IntegerField()
    status = serializers.CharField()
    started_at = serializers.DateTimeField()
    deadline = serializers.DateTimeField(allow_null=True)
    questions = serializers.SerializerMethodField()

    @extend_schema_field(QuestionSerializer(many=True))
    def get_questions(self, attempt) -> list[dict]:
        return QuestionSerializer(self.context["questions"], many=True).data


class PracticeQuestionSerializer(serializers.Serializer):
    attempt = serializers.IntegerField(source="attempt.id")
    skill = serializers.CharField(help_text="The lesson skill this question exercises.")
    question = QuestionSerializer()


# ----------------------------------------------------------------------------- responses


class ResponseInputSerializer(serializers.Serializer):
    question = serializers.IntegerField()
    part = serializers.CharField(max_length=64)
    answer = serializers.CharField(max_length=1000, allow_blank=True, trim_whitespace=False)
    idempotency_key = serializers.CharField(max_length=100)
    time_spent_ms = serializers.IntegerField(
        min_value=0, max_value=2**31 - 1, required=False, allow_null=True
    )


class ResponseResultSerializer(serializers.Serializer):
    """Correctness fields are null while the quiz's feedback policy hides them."""

    id = serializers.IntegerField()
    question = serializers.IntegerField(source="question_id")
    part = serializers.CharField()
    answer = serializers.CharField(source="raw")
    created_at = serializers.DateTimeField()
    valid = serializers.BooleanField()
    correct = serializers.BooleanField(allow_null=True)
    score = serializers.FloatField(allow_null=True)
    feedback = serializers.CharField(allow_null=True)
    misconception = serializers.CharField(allow_null=True)

    def to_representation(self, response):
        data = super().to_representation(response)
        data["misconception"] = data["misconception"] or None
        if not self.context.get("visible", False):
            for name in ("correct", "score", "feedback", "misconception"):
                data[name] = None
        return data


class UnreadableAnswerSerializer(serializers.Serializer):
    valid = serializers.BooleanField(default=False)
    detail = serializers.CharField(help_text="What the reader expected.")


class DetailSerializer(serializers.Serializer):
    detail = serializers.CharField()


# -------------------------------------------------------------------------------- review


class ReviewPartSerializer(PartSerializer):
    answer = serializers.SerializerMethodField(
        help_text="The correct value and unit, once the feedback policy allows."
    )

    @extend_schema_field(serializers.DictField(allow_null=True))
    def get_answer(self, part: dict) -> dict | None:
        if not self.context.get("visible", False):
            return None
        return {"value": part["value"], "unit": part["unit"]}


class ReviewQuestionSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="question.id")
    order = serializers.IntegerField(source="question.order")
    statement_html = serializers.CharField(source="question.statement_html")
    parts = serializers.SerializerMethodField()
    responses = serializers.SerializerMethodField()
    score = serializers.SerializerMethodField()
    solution_html = serializers.CharField(allow_null=True)

    @extend_schema_field(ReviewPartSerializer(many=True))
    def get_parts(self, review) -> list[dict]:
        return ReviewPartSerializer(review.question.answers, many=True, context=self.context).data

    @extend_schema_field(ResponseResultSerializer(many=True))
    def get_responses(self, review) -> list[dict]:
        return ResponseResultSerializer(review.responses, many=True, context=self.context).data

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_score(self, review) -> float | None:
        return review.score if self.context.get("visible", False) else None


class AttemptReviewSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="attempt.id")
    quiz = serializers.IntegerField(source="attempt.quiz_id")
    title = serializers.CharField(source="attempt.quiz.title")
    mode = serializers.CharField(source="attempt.quiz.mode")
    number = serializers.IntegerField(source="attempt.number")
    status = serializers.CharField(source="attempt.status")
    started_at = serializers.DateTimeField(source="attempt.started_at")
    deadline = serializers.DateTimeField(source="attempt.deadline", allow_null=True)
    finished_at = serializers.DateTimeField(source="attempt.finished_at", allow_null=True)
    feedback_visible = serializers.BooleanField(source="visible")
    score = serializers.SerializerMethodField()
    points = serializers.SerializerMethodField()
    max_points = serializers.FloatField(source="score.max_points")
    passed = serializers.SerializerMethodField()
    pass_mark = serializers.FloatField(source="attempt.quiz.pass_mark")
    questions = serializers.SerializerMethodField()

    def _score(self, review):
        attempt = review.attempt
        return attempt.score if attempt.score is not None else review.score.score

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_score(self, review) -> float | None:
        return self._score(review) if review.visible else None

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_points(self, review) -> float | None:
        if not review.visible:
            return None
        attempt = review.attempt
        return attempt.points if attempt.points is not None else review.score.points

    @extend_schema_field(serializers.BooleanField(allow_null=True))
    def get_passed(self, review) -> bool | None:
        if not review.visible or review.attempt.is_open:
            return None
        return self._score(review) >= review.attempt.quiz.pass_mark

    @extend_schema_field(ReviewQuestionSerializer(many=True))
    def get_questions(self, review) -> list[dict]:
        context = {**self.context, "visible": review.visible}
        return ReviewQuestionSerializer(review.questions, many=True, context=context).data


class AttemptSummarySerializer(serializers.ModelSerializer):
    learner = serializers.CharField(source="learner.get_username")
    score = serializers.SerializerMethodField()
    passed = serializers.SerializerMethodField()

    class Meta:
        model = Attempt
        fields = ["id", "learner", "number", "status", "started_at", "deadline", "finished_at"]
        fields += ["score", "passed"]

    def _visible(self, attempt) -> bool:
        return self.context["visible"](attempt)

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_score(self, attempt) -> float | None:
        return attempt.score if self._visible(attempt) else None

    @extend_schema_field(serializers.BooleanField(allow_null=True))
    def get_passed(self, attempt) -> bool | None:
        return attempt.passed if self._visible(attempt) else None


# ------------------------------------------------------------------- mastery and items


class LessonMasterySerializer(serializers.Serializer):
    lesson = serializers.SlugField()
    title = serializers.CharField()
    p_mastery = serializers.FloatField()
    mastered = serializers.BooleanField()
    responses = serializers.IntegerField()


class MisconceptionCountSerializer(serializers.Serializer):
    code = serializers.CharField()
    count = serializers.IntegerField()


class ItemStatsSerializer(serializers.Serializer):
    template = serializers.CharField()
    responses = serializers.IntegerField()
    proportion_correct = serializers.FloatField(allow_null=True)
    questions = serializers.IntegerField(
        help_text="Questions in finished attempts: the discrimination sample."
    )
    discrimination = serializers.FloatField(
        allow_null=True,
        help_text="Point-biserial correlation of item correctness with attempt score.",
    )
    misconceptions = serializers.SerializerMethodField()
    median_time_spent_ms = serializers.FloatField(allow_null=True)

    @extend_schema_field(MisconceptionCountSerializer(many=True))
    def get_misconceptions(self, item) -> list[dict]:
        return [{"code": code, "count": count} for code, count in item.misconceptions]


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField()
