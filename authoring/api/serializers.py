"""Authoring API bodies. A document is the authoring format's object (problems.authored
.schema validates it in the service, naming each problem by its field path); the
serializers only check that it is an object."""

from __future__ import annotations

from rest_framework import serializers

from api_common.fields import StrictBooleanField, StrictIntegerField, StrictSlugField
from authoring.models import AuthoredTemplate, AuthoredVersion
from authoring.preview import MAX_PREVIEW_SEEDS

DOCUMENT = (
    "The template in the authoring format (docs: templates guide, 'Templates instructors "
    "write'): the same object as its YAML file, as JSON."
)


class DocumentInputSerializer(serializers.Serializer):
    document = serializers.DictField(help_text=DOCUMENT)


class CheckInputSerializer(DocumentInputSerializer):
    slug = StrictSlugField(
        required=False,
        max_length=60,
        help_text="The authored template the document would be a new version of, if any: "
        "its own slug is then not a clash.",
    )


class PreviewInputSerializer(CheckInputSerializer):
    seeds = serializers.ListField(
        child=StrictIntegerField(min_value=0, max_value=2**31 - 1),
        required=False,
        max_length=MAX_PREVIEW_SEEDS,
        help_text="Seeds to draw (default [0, 1, 2]); at most 10.",
    )


class ProblemSerializer(serializers.Serializer):
    field = serializers.CharField(
        help_text="Where in the document: a path such as `parts[0].unit`, or `(file)`."
    )
    message = serializers.CharField(help_text="What is wrong, in the author's words.")


class ValidationResultSerializer(serializers.Serializer):
    valid = serializers.BooleanField(help_text="True when create or update would accept it.")
    problems = ProblemSerializer(many=True, help_text="Every problem; empty when valid.")


class PreviewAnswerSerializer(serializers.Serializer):
    part = serializers.CharField()
    label = serializers.CharField()
    kind = serializers.ChoiceField(choices=["numeric", "integer", "choice"])
    value = serializers.CharField(help_text="The exact answer (6 significant figures).")
    unit = serializers.CharField(help_text="Its unit; empty for a pure number or a choice.")


class PreviewVariantSerializer(serializers.Serializer):
    seed = serializers.IntegerField()
    parameters = serializers.DictField(help_text="The drawn parameter values by name.")
    statement_html = serializers.CharField(help_text="The statement as a learner sees it.")
    solution_html = serializers.CharField(help_text="The worked solution.")
    answers = PreviewAnswerSerializer(many=True)


class SlipCheckSerializer(serializers.Serializer):
    part = serializers.CharField()
    misconception = serializers.CharField()
    applies = serializers.IntegerField(help_text="Variants where the slip changes the answer.")
    distinguishable = serializers.IntegerField(
        help_text="Of those, variants where a grader tells it apart from the right answer."
    )


class PreviewSerializer(serializers.Serializer):
    variants = PreviewVariantSerializer(many=True)
    checked = serializers.IntegerField(help_text="Variants the check ran over.")
    failures = serializers.ListField(
        child=serializers.CharField(),
        help_text="What the check found wrong (at most 10); publishing refuses while any.",
    )
    misconceptions = SlipCheckSerializer(many=True)


class VersionSummarySerializer(serializers.ModelSerializer):
    saved_by = serializers.SerializerMethodField(help_text="Username; null if since deleted.")

    class Meta:
        model = AuthoredVersion
        fields = ["number", "created_at", "saved_by"]
        read_only_fields = fields

    def get_saved_by(self, row: AuthoredVersion) -> str | None:
        return row.created_by.username if row.created_by else None


class VersionSerializer(VersionSummarySerializer):
    document = serializers.DictField(source="spec", help_text=DOCUMENT)

    class Meta(VersionSummarySerializer.Meta):
        fields = [*VersionSummarySerializer.Meta.fields, "document"]
        read_only_fields = fields


class TemplateSummarySerializer(serializers.ModelSerializer):
    course = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    versions = serializers.IntegerField(source="version_count", help_text="How many saved.")

    class Meta:
        model = AuthoredTemplate
        fields = ["slug", "course", "status", "versions", "created_at", "updated_at"]
        read_only_fields = fields


class TemplateSerializer(serializers.Serializer):
    """Built from a dict the view assembles: the row's fields, the latest version's
    document and the versions."""

    slug = serializers.SlugField()
    course = serializers.SlugField(help_text="The course the template belongs to.")
    status = serializers.ChoiceField(choices=AuthoredTemplate.Status.choices)
    document = serializers.DictField(help_text="The latest version's document.")
    versions = VersionSummarySerializer(many=True, help_text="Every version, newest first.")
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class RegradeInputSerializer(serializers.Serializer):
    dry_run = StrictBooleanField(
        default=False, help_text="True: report what would change and store nothing."
    )


class ScoreChangeSerializer(serializers.Serializer):
    response_id = serializers.IntegerField()
    question_id = serializers.IntegerField()
    part = serializers.CharField()
    old = serializers.FloatField(help_text="The score stored before, 0 to 1.")
    new = serializers.FloatField(help_text="The score with the current version, 0 to 1.")


class AttemptRescoreSerializer(serializers.Serializer):
    attempt_id = serializers.IntegerField()
    old = serializers.FloatField(allow_null=True, help_text="null: the attempt had no score.")
    new = serializers.FloatField()


class RegradeSerializer(serializers.Serializer):
    dry_run = serializers.BooleanField()
    questions = serializers.IntegerField(help_text="Questions that drew the template.")
    responses = serializers.IntegerField(help_text="Stored answers regraded.")
    changes = ScoreChangeSerializer(many=True, help_text="Every score that moved.")
    attempts = AttemptRescoreSerializer(many=True, help_text="Closed attempts rescored.")
    refused = serializers.CharField(
        help_text="Why nothing would be stored (a dry run that a real regrade would refuse); "
        "empty when it would go through."
    )
