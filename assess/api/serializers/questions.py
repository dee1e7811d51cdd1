"""Questions as a learner sees them: on start, in practice, and under review.

Payloads are built from whitelisted fields only: a part's value never leaves through
them, nor does a seed or a parameter. The statement comes twice, as HTML with MathML
(ready to show) and as the Markdown with LaTeX it was rendered from (for clients that
typeset maths themselves, e.g. with KaTeX or MathJax); the worked solution likewise, and
both are null while the feedback policy (assess.policy) hides them.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api_common.representation import PlainRepresentation, child_writer
from assess.api.serializers.drills import DrillSerializer
from assess.api.serializers.hints import QuestionHintsSerializer
from assess.api.serializers.responses import ResponseResultSerializer
from assess.scoring import SAVES_CEILING
from assess.selectors.hints import question_hint_total

STATEMENT_HTML_HELP = "The statement as HTML, maths as MathML."
STATEMENT_MARKDOWN_HELP = (
    "The same statement as Markdown, maths as LaTeX between `$...$` (inline) and "
    "`$$...$$` (display). Empty for a question stored before this field existed whose "
    "template is gone; use statement_html then."
)


class PartSerializer(PlainRepresentation, serializers.Serializer):
    """What a learner needs to answer a part: never its value."""

    name = serializers.CharField(help_text="Send it as `part` with an answer or a reveal.")
    label = serializers.CharField(help_text="What the part asks for.")
    unit = serializers.CharField(
        help_text="The unit the answer is expected in; an answer may carry another "
        "compatible unit (e.g. GiB for GB), and a bare number is read in this one."
    )
    kind = serializers.ChoiceField(choices=["numeric", "integer", "choice"])
    choices = serializers.ListField(
        child=serializers.CharField(), help_text="The options of a choice part; else empty."
    )


class QuestionSerializer(PlainRepresentation, serializers.Serializer):
    id = serializers.IntegerField(help_text="Send it as `question` with an answer.")
    order = serializers.IntegerField(help_text="Position in the attempt, from 1.")
    statement_html = serializers.CharField(help_text=STATEMENT_HTML_HELP)
    statement_markdown = serializers.CharField(help_text=STATEMENT_MARKDOWN_HELP)
    parts = serializers.SerializerMethodField()

    @extend_schema_field(PartSerializer(many=True))
    def get_parts(self, question) -> list[dict]:
        writer = child_writer(self, PartSerializer)
        return [writer.to_representation(part) for part in question.answers]


class PracticeQuestionSerializer(serializers.Serializer):
    attempt = serializers.IntegerField(
        source="attempt.id",
        help_text="The learner's practice attempt for this lesson: answer through "
        "/api/attempts/{attempt}/responses/.",
    )
    skill = serializers.CharField(help_text="The lesson skill this question exercises.")
    question = QuestionSerializer()


# -------------------------------------------------------------------------------- review


class AnswerSerializer(serializers.Serializer):
    value = serializers.JSONField(help_text="A number, or the option of a choice part.")
    unit = serializers.CharField()


class PartStatusSerializer(PlainRepresentation, serializers.Serializer):
    """Where a part stands under the quiz's rules and feedback policy."""

    tries = serializers.IntegerField(help_text="Answers stored for this part.")
    tries_left = serializers.IntegerField(
        allow_null=True,
        help_text="Immediate feedback with a try limit of the quiz's own; else null (a part "
        "still closes at 30 tries, `closed: exhausted`).",
    )
    closed = serializers.ChoiceField(
        choices=["solved", "revealed", "exhausted", "submitted"],
        allow_null=True,
        help_text="Why the part takes no more answers: with immediate feedback a correct "
        "try, a reveal, its last allowed try, or an incident drill's submission; with "
        f"deferred feedback `exhausted` once it has kept {SAVES_CEILING} saves; else null.",
    )
    accepts_answers = serializers.BooleanField(
        source="accepts", help_text="The learner may send an answer to this part now."
    )
    score = serializers.SerializerMethodField()
    hints_used = serializers.IntegerField(help_text="Hints asked from this part.")
    can_hint = serializers.BooleanField(
        help_text="The learner may ask for a hint from this part now (POST .../hints/): "
        "the quiz offers hints and the part still takes answers."
    )

    @extend_schema_field(
        serializers.FloatField(
            allow_null=True, help_text="The part's credit (0 to 1); null while hidden."
        )
    )
    def get_score(self, policy) -> float | None:
        return policy.score if policy.show_grades else None


class ReviewPartSerializer(PartSerializer):
    answer = serializers.SerializerMethodField(
        help_text="The correct value and unit, once the feedback policy allows: after a "
        "correct try, the last allowed try or a reveal (immediate feedback), or when the "
        "grades are released (deferred feedback); else null."
    )
    status = serializers.SerializerMethodField()

    # The policy of the question whose parts are written, set by the question's
    # serializer before it writes them (ReviewQuestionSerializer.get_parts).
    question_policy = None

    def _policy(self, part: dict):
        return self.question_policy.parts[part["name"]]

    @extend_schema_field(AnswerSerializer(allow_null=True))
    def get_answer(self, part: dict) -> dict | None:
        if not self._policy(part).show_answer:
            return None
        return {"value": part["value"], "unit": part["unit"]}

    @extend_schema_field(PartStatusSerializer)
    def get_status(self, part: dict) -> dict:
        """Written by one PartStatusSerializer for all the parts this serializer writes
        (child_writer): building one a part cost more than writing the status."""
        return child_writer(self, PartStatusSerializer).to_representation(self._policy(part))


SOLUTION_HELP = (
    "The worked solution, once every part's answer may show (see `parts[].answer`); else null."
)


class ReviewQuestionSerializer(PlainRepresentation, serializers.Serializer):
    id = serializers.IntegerField(source="question.id")
    order = serializers.IntegerField(source="question.order")
    statement_html = serializers.CharField(
        source="question.statement_html", help_text=STATEMENT_HTML_HELP
    )
    statement_markdown = serializers.CharField(
        source="question.statement_markdown", help_text=STATEMENT_MARKDOWN_HELP
    )
    parts = serializers.SerializerMethodField()
    responses = serializers.SerializerMethodField()
    score = serializers.SerializerMethodField()
    solution_html = serializers.CharField(
        allow_null=True, help_text=f"{SOLUTION_HELP} HTML, maths as MathML."
    )
    solution_markdown = serializers.CharField(
        allow_null=True,
        help_text=f"{SOLUTION_HELP} The same as Markdown, maths as LaTeX.",
    )
    can_reveal = serializers.BooleanField(
        source="policy.can_reveal",
        help_text="Immediate feedback: a part still open may be revealed "
        "(POST .../reveal/), which forfeits its remaining tries.",
    )
    hints = serializers.SerializerMethodField()
    drill = serializers.SerializerMethodField()

    @extend_schema_field(
        DrillSerializer(
            allow_null=True,
            help_text="An incident drill's actions, steps and choices (answer it through "
            ".../drill/actions/ and .../drill/submit/, not part by part); null for any "
            "other question.",
        )
    )
    def get_drill(self, review) -> dict | None:
        return None if review.drill is None else DrillSerializer(review.drill).data

    @extend_schema_field(QuestionHintsSerializer)
    def get_hints(self, review) -> dict:
        policy = review.policy
        total = question_hint_total(review.question) if policy.hints_offered else None
        return {"offered": policy.hints_offered, "used": policy.hints_used, "total": total}

    @extend_schema_field(ReviewPartSerializer(many=True))
    def get_parts(self, review) -> list[dict]:
        writer = child_writer(self, ReviewPartSerializer)
        writer.question_policy = review.policy  # the question's policy, not the last one's
        return [writer.to_representation(part) for part in review.question.answers]

    @extend_schema_field(ResponseResultSerializer(many=True))
    def get_responses(self, review) -> list[dict]:
        writer = child_writer(self, ResponseResultSerializer)
        return [writer.to_representation(response) for response in review.responses]

    @extend_schema_field(
        serializers.FloatField(
            allow_null=True, help_text="The question's credit (0 to 1); null while hidden."
        )
    )
    def get_score(self, review) -> float | None:
        return review.policy.score if review.policy.show_score else None
