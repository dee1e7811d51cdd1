"""A hint as the learner is shown it, and the question's hints under the policy."""

from __future__ import annotations

from rest_framework import serializers

from api_common.fields import StrictCharField
from api_common.representation import PlainRepresentation
from api_common.request_serializers import FlatRequest


class HintInputSerializer(FlatRequest, serializers.Serializer):
    part = StrictCharField(
        max_length=64, help_text="The `name` of the part the hint is asked from."
    )


class HintSerializer(PlainRepresentation, serializers.Serializer):
    index = serializers.IntegerField(source="hint.index", help_text="This hint's place, from 1.")
    total = serializers.IntegerField(source="hint.total", help_text="How many hints there are.")
    html = serializers.CharField(source="hint.html", help_text="The hint, maths as MathML.")
    markdown = serializers.CharField(
        source="hint.markdown", help_text="The same as Markdown, maths as LaTeX."
    )
    recorded = serializers.BooleanField(
        help_text="False when every hint was shown already: this is the last one again, "
        "and nothing new was recorded (or charged)."
    )


class QuestionHintsSerializer(serializers.Serializer):
    """The shape of ReviewQuestionSerializer.hints (built as a dict; schema only)."""

    offered = serializers.BooleanField(
        help_text="The quiz offers hints (practice and homework; never exams or "
        "certifications) and the reader is the attempt's learner."
    )
    used = serializers.IntegerField(help_text="Hints shown on this question, from any part.")
    total = serializers.IntegerField(
        allow_null=True, help_text="Hints the question has; null when none are offered."
    )
