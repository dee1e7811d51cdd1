"""Per-learner extensions of a quiz, as listed and as an instructor sets one."""

from __future__ import annotations

from datetime import timedelta

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api_common.fields import StrictIntegerField
from api_common.request_serializers import FlatRequest
from assess.models import Extension
from assess.services.extensions import MAX_EXTRA_TIME

EXTRA_TIME_HELP = (
    "Minutes added to the quiz's time limit for each of this learner's attempts, an "
    "open one included; null: none. Only on a quiz with a time limit."
)
CLOSES_AT_HELP = (
    "A later close for this learner alone: they may start and answer until then; null: "
    "the quiz's close. After the quiz's own close, in the future, and only on a quiz "
    "that closes. `after_close` feedback waits for the latest such close of any learner."
)


class ExtensionSerializer(serializers.ModelSerializer):
    learner = serializers.IntegerField(
        source="learner_id", read_only=True, help_text="The learner's user id."
    )
    username = serializers.CharField(source="learner.get_username", read_only=True)
    extra_time_minutes = serializers.SerializerMethodField()
    closes_at = serializers.DateTimeField(read_only=True, allow_null=True, help_text=CLOSES_AT_HELP)
    granted_by = serializers.SerializerMethodField()

    class Meta:
        model = Extension
        fields = [
            "learner",
            "username",
            "extra_time_minutes",
            "closes_at",
            "granted_by",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    @extend_schema_field(serializers.FloatField(allow_null=True, help_text=EXTRA_TIME_HELP))
    def get_extra_time_minutes(self, extension: Extension) -> float | None:
        return extension.extra_time.total_seconds() / 60 if extension.extra_time else None

    @extend_schema_field(
        serializers.CharField(allow_null=True, help_text="Username of who granted it.")
    )
    def get_granted_by(self, extension: Extension) -> str | None:
        return extension.granted_by.get_username() if extension.granted_by else None


class ExtensionInputSerializer(FlatRequest, serializers.Serializer):
    """The whole extension (an upsert): give extra time, a later close, or both."""

    extra_time_minutes = StrictIntegerField(
        min_value=1,
        max_value=int(MAX_EXTRA_TIME.total_seconds() // 60),
        required=False,
        allow_null=True,
        help_text=f"{EXTRA_TIME_HELP} 1 to 10080 (7 days).",
    )
    closes_at = serializers.DateTimeField(required=False, allow_null=True, help_text=CLOSES_AT_HELP)

    def to_kwargs(self) -> dict:
        d = self.validated_data
        minutes = d.get("extra_time_minutes")
        return {
            "extra_time": timedelta(minutes=minutes) if minutes else None,
            "closes_at": d.get("closes_at"),
        }
