"""What the LMS grade-sync operations send and read: a quiz's ScoreSync rows, their counts
by state, and a resend's ids."""

from __future__ import annotations

from rest_framework import serializers

from api_common.fields import StrictIntegerField
from api_common.request_serializers import FlatRequest
from assess.api.schema import NamedChoiceField
from lti.models import ScoreSync

MAX_RESEND_IDS = 1000
MAX_ID = 2**63 - 1  # a row id is a 64-bit integer: a bigger one could match nothing

STATE_HELP = (
    "pending (to send, or being retried), sent (the LMS gradebook holds it) or failed "
    "(see `reason` and `permanent`)."
)


def state_field(**kwargs) -> NamedChoiceField:
    return NamedChoiceField(
        enum_name="ScoreSyncStateEnum", choices=ScoreSync.State.choices, **kwargs
    )


class ScoreLearnerSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The learner's Burn-in user id.")
    username = serializers.CharField(source="get_username", help_text="Their username.")
    name = serializers.SerializerMethodField(help_text="Full name, or the username without one.")

    def get_name(self, user) -> str:
        return user.get_full_name().strip() or user.get_username()


class LmsContextSerializer(serializers.Serializer):
    title = serializers.CharField(help_text="The LMS course's title, as the LMS sent it.")
    id_on_platform = serializers.CharField(help_text="The LMS course's id in the LMS.")


class ScoreSyncSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The row's id (what a resend's `ids` names).")
    learner = ScoreLearnerSerializer(help_text="The Burn-in learner whose score it is.")
    lms_user_id = serializers.CharField(
        source="lti_user.sub", help_text="The learner's user id in the LMS (LTI `sub`)."
    )
    lms_context = LmsContextSerializer(
        source="context", help_text="The LMS course whose gradebook takes the score."
    )
    state = state_field(help_text=STATE_HELP)
    permanent = serializers.BooleanField(
        help_text="True when the LMS refused the score (a failure a retry will not fix "
        "until something changes in the LMS); false otherwise."
    )
    reason = serializers.CharField(
        allow_blank=True, help_text="Why the last send failed, in words; empty when sent."
    )
    tries = serializers.IntegerField(help_text="Sends tried since the score last changed.")
    score_given = serializers.FloatField(help_text="The score the gradebook should hold.")
    score_maximum = serializers.FloatField(help_text="The quiz's total points.")
    sent_score_given = serializers.FloatField(
        allow_null=True, help_text="The score the LMS last took; null if none was ever sent."
    )
    sent_at = serializers.DateTimeField(
        allow_null=True, help_text="When the LMS last took a score; null if never."
    )
    updated_at = serializers.DateTimeField(help_text="The row's last change.")


class ScoreSyncQuerySerializer(FlatRequest, serializers.Serializer):
    state = state_field(
        required=False, help_text="Only rows of this state; absent: every row. " + STATE_HELP
    )


class ScoreSyncCountsSerializer(serializers.Serializer):
    pending = serializers.IntegerField(help_text="Scores waiting to be sent or retried.")
    sent = serializers.IntegerField(help_text="Scores the LMS gradebook holds.")
    failed = serializers.IntegerField(help_text="Scores the LMS did not take.")
    unsent = serializers.IntegerField(
        help_text="pending + failed: scores not yet in an LMS gradebook."
    )


class ResendInputSerializer(serializers.Serializer):
    ids = serializers.ListField(
        child=StrictIntegerField(min_value=1, max_value=MAX_ID),
        max_length=MAX_RESEND_IDS,
        required=False,
        help_text="The rows to resend (ids from the list); absent: every unsent row of "
        f"the quiz. At most {MAX_RESEND_IDS}; sent rows and other quizzes' rows are ignored.",
    )


class ResendSerializer(serializers.Serializer):
    resent = serializers.IntegerField(help_text="How many rows were queued to send again.")
