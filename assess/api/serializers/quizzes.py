"""Quizzes as listed and read, and the body that creates one.

Response serializers mark every field read-only: each is always present in the body,
so the schema lists them all as required and a generated client need not guess.
"""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api_common.errors import FlatErrorsListSerializer
from api_common.fields import StrictCharField, StrictFloatField, StrictIntegerField, StrictSlugField
from assess.models import Quiz
from assess.models.quiz import later_close
from assess.services.quizzes import (
    MAX_ATTEMPTS,
    MAX_POINTS,
    MAX_POOL_ENTRIES,
    MAX_SLOTS,
    MAX_TIME_LIMIT,
    MAX_TRIES,
    QuizSpec,
    SlotSpec,
)

MAX_TEMPLATES_PER_SLOT = 100
MAX_LESSONS = 200

FEEDBACK_HELP = (
    "When a learner sees correctness, answers and worked solutions. `immediately`: "
    "every try is graded at once, with the misconception named; a part's answer (and "
    "the worked solution once every part is closed) shows after a correct try, the "
    "part's last allowed try or a reveal. `after_attempt`: nothing about correctness "
    "until the attempt is finished or expired; answers may be changed until then and "
    "the last saved one counts. `after_close`: as after_attempt, but only once the quiz "
    "has closed for everyone: `closes_at`, or the latest close a learner's extension "
    "gives, whichever is later."
)
MODE_HELP = (
    "`practice` (immediate feedback, unlimited tries), `homework` (immediate feedback, 3 "
    "tries per part by default), `exam` and `certification` (feedback after the attempt "
    "or after the close, never immediately)."
)
TRIES_HELP = (
    "Immediate feedback only: graded tries per part (at most 30); null for no limit of "
    "the quiz's own, where a part still closes at 30 tries (a further answer is a 409 "
    "naming the limit: ask for a new variant). A part closes after its last allowed "
    "try, and then shows its answer."
)
COUNTING_HELP = (
    "Which closed attempt is the learner's grade (and the score sent to an LMS "
    "gradebook): `best` scored or `last` closed."
)
STATUS_HELP = (
    "Where the quiz is in its life. `draft`: seen only by its instructors and staff, "
    "started by no one, editable; `published`: its learners see it and start it within "
    "its dates; `closed`: published, and its close (`closes_at`, or the latest close a "
    "learner's extension gives) has passed, so no attempt starts or takes answers; its "
    "attempts and grades stay. A learner never sees a draft (404)."
)
NEW_STATUS_HELP = (
    "`published` (the default: learners of the course see it at once, as before drafts "
    "existed) or `draft` (only its instructors and staff see it until "
    "POST /api/quizzes/{id}/publish/)."
)
HINT_PENALTY_HELP = (
    "Homework only: the share of a part's credit lost for each hint asked from it "
    "(practice hints are free; exams and certifications offer none)."
)
PENALTY_HELP = (
    "Immediate feedback only: the share of a part's credit lost for each try before the "
    "first correct one."
)


class SlotSerializer(serializers.Serializer):
    """One question position of a quiz; each attempt draws one template from its pool."""

    order = serializers.IntegerField(read_only=True, help_text="Position, from 1.")
    points = serializers.IntegerField(read_only=True, help_text="What the question is worth.")
    templates = serializers.ListField(
        child=serializers.CharField(), read_only=True, help_text="The pool of template slugs."
    )


class SlotInputSerializer(serializers.Serializer):
    points = StrictIntegerField(
        min_value=1, max_value=MAX_POINTS, default=1, help_text="What the question is worth."
    )
    templates = serializers.ListField(
        child=StrictCharField(max_length=64),
        min_length=1,
        max_length=MAX_TEMPLATES_PER_SLOT,
        help_text="Slugs of problem templates (`manage.py problems list`), each listed "
        "once; each attempt draws one of them for this slot.",
    )

    class Meta:
        ref_name = "Slot"  # the request component keeps its name: SlotRequest
        list_serializer_class = FlatErrorsListSerializer  # `slots: []` names `slots`


class QuizSerializer(serializers.ModelSerializer):
    course = serializers.SlugRelatedField(
        slug_field="slug",
        read_only=True,
        allow_null=True,
        help_text="The course's slug; null for a quiz open to every signed-in user.",
    )
    lessons = serializers.SlugRelatedField(
        slug_field="slug", many=True, read_only=True, help_text="Slugs of the lessons tested."
    )
    mode = serializers.ChoiceField(choices=Quiz.Mode.choices, read_only=True, help_text=MODE_HELP)
    feedback = serializers.ChoiceField(
        choices=Quiz.Feedback.choices, read_only=True, help_text=FEEDBACK_HELP
    )
    time_limit_minutes = serializers.SerializerMethodField()
    attempts_allowed = serializers.IntegerField(
        read_only=True, allow_null=True, help_text="Attempts per learner; null for unlimited."
    )
    opens_at = serializers.DateTimeField(
        read_only=True, allow_null=True, help_text="No attempt starts before; null: open now."
    )
    closes_at = serializers.DateTimeField(
        read_only=True,
        allow_null=True,
        help_text="No attempt starts, and none takes answers, from then on; null: never.",
    )
    pass_mark = serializers.FloatField(read_only=True, help_text="Score (0 to 1) to pass.")
    counting_attempt = serializers.ChoiceField(
        choices=Quiz.Counting.choices, read_only=True, help_text=COUNTING_HELP
    )
    tries_per_part = serializers.IntegerField(read_only=True, allow_null=True, help_text=TRIES_HELP)
    penalty_per_try = serializers.FloatField(read_only=True, help_text=PENALTY_HELP)
    hint_penalty = serializers.FloatField(read_only=True, help_text=HINT_PENALTY_HELP)
    slots = SlotSerializer(many=True, read_only=True)
    closes_at_for_you = serializers.SerializerMethodField()
    status = serializers.SerializerMethodField()

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
            "counting_attempt",
            "tries_per_part",
            "penalty_per_try",
            "hint_penalty",
            "slots",
            "closes_at_for_you",
            "status",
        ]
        read_only_fields = fields

    @extend_schema_field(
        serializers.ChoiceField(choices=Quiz.Status.choices, help_text=STATUS_HELP)
    )
    def get_status(self, quiz: Quiz) -> str:
        return quiz.status_at(self.context.get("now") or timezone.now())

    @extend_schema_field(
        serializers.DateTimeField(
            allow_null=True,
            help_text="When the quiz closes for you: a later close an instructor gave you "
            "(an extension), else `closes_at`; null: never.",
        )
    )
    def get_closes_at_for_you(self, quiz: Quiz):
        """From the reader's extended closes the view passes ({quiz id: close}); a
        view that passes none (the creator's 201) shows the quiz's own close."""
        closes = later_close(quiz.closes_at, self.context.get("extended_closes", {}).get(quiz.pk))
        return serializers.DateTimeField().to_representation(closes) if closes else None

    @extend_schema_field(
        serializers.FloatField(allow_null=True, help_text="Time per attempt; null: no limit.")
    )
    def get_time_limit_minutes(self, quiz: Quiz) -> float | None:
        return quiz.time_limit.total_seconds() / 60 if quiz.time_limit else None


class QuizCreateSerializer(serializers.Serializer):
    title = StrictCharField(max_length=200)
    mode = serializers.ChoiceField(choices=Quiz.Mode.choices, help_text=MODE_HELP)
    slots = SlotInputSerializer(
        many=True,
        allow_empty=False,
        max_length=MAX_SLOTS,
        help_text=f"The questions, in order: 1 to {MAX_SLOTS} slots, listing at most "
        f"{MAX_POOL_ENTRIES} templates among them (a 400 `invalid` on `slots` past it).",
    )
    course = StrictSlugField(
        required=False,
        allow_null=True,
        max_length=100,
        help_text="Slug of the course the quiz belongs to; only its enrolled learners, its "
        "instructors and staff see it. Required unless you are staff (an instructor "
        "creates quizzes in the courses they teach, 403 otherwise); staff may omit it "
        "for a quiz open to every signed-in user.",
    )
    lessons = serializers.ListField(
        child=StrictSlugField(max_length=100),
        required=False,
        default=list,
        max_length=MAX_LESSONS,
        help_text="Slugs of the lessons the quiz tests.",
    )
    time_limit_minutes = StrictIntegerField(
        min_value=1,
        max_value=int(MAX_TIME_LIMIT.total_seconds() // 60),
        required=False,
        allow_null=True,
        help_text="Time per attempt, at most 7 days (10080 minutes); null for no limit. "
        "An attempt also ends when the quiz closes.",
    )
    attempts_allowed = StrictIntegerField(
        min_value=1,
        max_value=MAX_ATTEMPTS,
        required=False,
        allow_null=True,
        help_text="Attempts per learner; null for unlimited.",
    )
    tries_per_part = StrictIntegerField(
        min_value=1,
        max_value=MAX_TRIES,
        required=False,
        allow_null=True,
        help_text=f"{TRIES_HELP} Default: 3 for homework, null for practice. Refused "
        "(400) with later feedback, where the last saved answer counts.",
    )
    penalty_per_try = StrictFloatField(
        min_value=0.0,
        max_value=1.0,
        default=0.0,
        help_text=f"{PENALTY_HELP} Refused (400) when not 0 with later feedback.",
    )
    hint_penalty = StrictFloatField(
        min_value=0.0,
        max_value=1.0,
        default=0.0,
        help_text=f"{HINT_PENALTY_HELP} Default 0. Refused (400) when not 0 outside homework.",
    )
    feedback = serializers.ChoiceField(
        choices=Quiz.Feedback.choices,
        required=False,
        help_text=f"{FEEDBACK_HELP} Default: immediately for practice and homework, "
        "after_attempt otherwise; exams and certifications refuse immediately, and "
        "after_close needs `closes_at`.",
    )
    opens_at = serializers.DateTimeField(
        required=False, allow_null=True, help_text="No attempt starts before this time."
    )
    closes_at = serializers.DateTimeField(
        required=False,
        allow_null=True,
        help_text="No attempt starts, and none takes answers, from this time; after `opens_at`.",
    )
    pass_mark = StrictFloatField(
        min_value=0.0, max_value=1.0, default=0.5, help_text="Score (0 to 1) to pass."
    )
    counting_attempt = serializers.ChoiceField(
        choices=Quiz.Counting.choices,
        default=Quiz.Counting.BEST,
        help_text=f"{COUNTING_HELP} Default: best.",
    )
    status = serializers.ChoiceField(
        choices=[(s.value, s.label) for s in Quiz.STORED_STATUSES],
        default=Quiz.Status.PUBLISHED,
        help_text=NEW_STATUS_HELP,
    )

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
            hint_penalty=d["hint_penalty"],
            counting_attempt=d["counting_attempt"],
        )
