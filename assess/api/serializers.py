"""Shapes of the assess API. Question payloads are built from whitelisted fields only:
a part's value never leaves through them, nor does a seed or a parameter."""

from __future__ import annotations

from datetime import timedelta

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from assess.models import Attempt, Enrolment, Quiz
from assess.services.quizzes import (
    MAX_ATTEMPTS,
    MAX_POINTS,
    MAX_SLOTS,
    MAX_TIME_LIMIT,
    MAX_TRIES,
    QuizSpec,
    SlotSpec,
)

MAX_ID = 2**63 - 1  # the largest primary key the databases store

# ------------------------------------------------------------------------------- quizzes


class SlotSerializer(serializers.Serializer):
    order = serializers.IntegerField(read_only=True)
    points = serializers.IntegerField(min_value=1, max_value=MAX_POINTS, default=1)
    templates = serializers.ListField(
        child=serializers.CharField(max_length=64), min_length=1, max_length=100
    )


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
            "tries_per_part",
            "penalty_per_try",
            "slots",
        ]

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_time_limit_minutes(self, quiz: Quiz) -> float | None:
        return quiz.time_limit.total_seconds() / 60 if quiz.time_limit else None


class QuizCreateSerializer(serializers.Serializer):
    title = serializers.CharField(max_length=200)
    mode = serializers.ChoiceField(choices=Quiz.Mode.choices)
    slots = SlotSerializer(many=True, allow_empty=False, max_length=MAX_SLOTS)
    course = serializers.SlugField(required=False, allow_null=True, max_length=100)
    lessons = serializers.ListField(
        child=serializers.SlugField(max_length=100), required=False, default=list, max_length=200
    )
    time_limit_minutes = serializers.IntegerField(
        min_value=1,
        max_value=int(MAX_TIME_LIMIT.total_seconds() // 60),
        required=False,
        allow_null=True,
        help_text="At most 7 days (10080 minutes); null for no limit.",
    )
    attempts_allowed = serializers.IntegerField(
        min_value=1, max_value=MAX_ATTEMPTS, required=False, allow_null=True
    )
    tries_per_part = serializers.IntegerField(
        min_value=1,
        max_value=MAX_TRIES,
        required=False,
        allow_null=True,
        help_text="Immediate feedback only: graded tries per part. Default: 3 for "
        "homework, unlimited for practice. Refused with later feedback.",
    )
    penalty_per_try = serializers.FloatField(
        min_value=0.0,
        max_value=1.0,
        default=0.0,
        help_text="Share of a part's credit lost for each try before the first correct one.",
    )
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
            tries_per_part=d.get("tries_per_part"),
            penalty_per_try=d["penalty_per_try"],
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
    question = serializers.IntegerField(min_value=1, max_value=MAX_ID)
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


class AnswerSerializer(serializers.Serializer):
    value = serializers.JSONField(help_text="A number, or the option of a choice part.")
    unit = serializers.CharField()


class PartStatusSerializer(serializers.Serializer):
    """Where a part stands under the quiz's rules (see assess.policy)."""

    tries = serializers.IntegerField(help_text="Answers stored for this part.")
    tries_left = serializers.IntegerField(
        allow_null=True, help_text="Immediate feedback with a try limit; else null."
    )
    closed = serializers.ChoiceField(
        choices=["solved", "revealed", "exhausted"],
        allow_null=True,
        help_text="Immediate feedback: why the part takes no more tries; else null.",
    )
    accepts_answers = serializers.BooleanField(source="accepts")
    score = serializers.SerializerMethodField()

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_score(self, policy) -> float | None:
        return policy.score if policy.show_grades else None


class ReviewPartSerializer(PartSerializer):
    answer = serializers.SerializerMethodField(
        help_text="The correct value and unit, once the feedback policy allows: after a "
        "correct try, the last allowed try or a reveal (immediate feedback), or when the "
        "grades are released (deferred feedback)."
    )
    status = serializers.SerializerMethodField()

    def _policy(self, part: dict):
        return self.context["policy"].parts[part["name"]]

    @extend_schema_field(AnswerSerializer(allow_null=True))
    def get_answer(self, part: dict) -> dict | None:
        if not self._policy(part).show_answer:
            return None
        return {"value": part["value"], "unit": part["unit"]}

    @extend_schema_field(PartStatusSerializer)
    def get_status(self, part: dict) -> dict:
        return PartStatusSerializer(self._policy(part)).data


class ReviewQuestionSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="question.id")
    order = serializers.IntegerField(source="question.order")
    statement_html = serializers.CharField(source="question.statement_html")
    parts = serializers.SerializerMethodField()
    responses = serializers.SerializerMethodField()
    score = serializers.SerializerMethodField()
    solution_html = serializers.CharField(
        allow_null=True, help_text="Once every part's answer may show."
    )
    can_reveal = serializers.BooleanField(
        source="policy.can_reveal",
        help_text="Immediate feedback: a part still open may be revealed "
        "(POST .../reveal/), which forfeits its remaining tries.",
    )

    @extend_schema_field(ReviewPartSerializer(many=True))
    def get_parts(self, review) -> list[dict]:
        context = {**self.context, "policy": review.policy}
        return ReviewPartSerializer(review.question.answers, many=True, context=context).data

    @extend_schema_field(ResponseResultSerializer(many=True))
    def get_responses(self, review) -> list[dict]:
        return ResponseResultSerializer(review.responses, many=True, context=self.context).data

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_score(self, review) -> float | None:
        return review.policy.score if review.policy.show_score else None


class AnswerResultSerializer(ResponseResultSerializer):
    """A stored answer, and its question as the learner may now see it (after a correct
    or last try the answer shows; an exam shows nothing until its grades are released)."""

    question_state = serializers.SerializerMethodField()

    @extend_schema_field(ReviewQuestionSerializer)
    def get_question_state(self, response) -> dict:
        return ReviewQuestionSerializer(self.context["review"], context=self.context).data


class RevealInputSerializer(serializers.Serializer):
    part = serializers.CharField(max_length=64)


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


class SkillMasterySerializer(serializers.Serializer):
    skill = serializers.CharField()
    p_mastery = serializers.FloatField(help_text="BKT estimate that the skill is known.")
    mastered = serializers.BooleanField(help_text="p_mastery >= 0.95.")
    evidence = serializers.IntegerField(help_text="Answers that updated this estimate.")


class LessonMasterySerializer(serializers.Serializer):
    course = serializers.SlugField()
    lesson = serializers.SlugField()
    title = serializers.CharField()
    skills_total = serializers.IntegerField(source="summary.skills")
    skills_mastered = serializers.IntegerField(source="summary.mastered")
    share_mastered = serializers.FloatField(source="summary.share")
    mastered = serializers.BooleanField(source="summary.complete")
    weakest_skill = serializers.CharField(source="summary.weakest")
    weakest_p_mastery = serializers.FloatField(source="summary.weakest_p")
    evidence = serializers.IntegerField(help_text="Answers behind the lesson's skills.")
    skills = SkillMasterySerializer(many=True)


class MasterySerializer(serializers.Serializer):
    """Skills are global (knowledge carries across courses); lessons are those of the
    courses the learner is enrolled in."""

    skills = SkillMasterySerializer(many=True)
    lessons = LessonMasterySerializer(many=True)


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


# ---------------------------------------------------------------------------- enrolment


class EnrolmentSerializer(serializers.ModelSerializer):
    course = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    username = serializers.CharField(source="user.get_username", read_only=True)

    class Meta:
        model = Enrolment
        fields = ["course", "username", "source", "created_at"]


class EnrolmentInputSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
