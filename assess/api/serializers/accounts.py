"""Signing in, and enrolments in courses."""

from __future__ import annotations

from rest_framework import serializers
from rest_framework.authtoken.serializers import AuthTokenSerializer

from api_common.fields import StrictCharField
from api_common.request_serializers import FlatRequest
from assess.models import Enrolment

USERNAME_MAX = 150  # Django's username length
PASSWORD_MAX = 4096  # longer is no password anyone types, and costs hashing time


class TokenRequestSerializer(FlatRequest, AuthTokenSerializer):
    """Credentials to exchange for a token; wrong ones are a 400 with code
    `authorization`."""

    # rest_framework's AuthTokenSerializer (which checks the credentials) without its
    # `token` field, the answer's, which a request model must not demand; and with
    # bounded lengths.

    username = StrictCharField(max_length=USERNAME_MAX, write_only=True)
    password = StrictCharField(max_length=PASSWORD_MAX, trim_whitespace=False, write_only=True)
    token = None

    class Meta:
        ref_name = "AuthToken"  # the request component keeps its name: AuthTokenRequest


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField(
        help_text="Send it as `Authorization: Token <token>`. It is valid until "
        "`expires_at` or until it is revoked; asking again returns the same token until "
        "then, and a new one after it has expired."
    )
    expires_at = serializers.DateTimeField(
        help_text="When the token stops working (a 401 with code `token_expired`)."
    )


class EnrolmentSerializer(serializers.ModelSerializer):
    course = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    username = serializers.CharField(source="user.get_username", read_only=True)
    learner_id = serializers.IntegerField(
        source="user_id",
        read_only=True,
        help_text="The learner's user id: the `learner_id` of "
        "`/api/quizzes/{id}/extensions/{learner_id}/`.",
    )
    source = serializers.ChoiceField(
        choices=Enrolment.Source.choices,
        read_only=True,
        help_text="How the learner came in: `self` (POST .../enrol/), `instructor`, "
        "`practice` (started lesson practice), `lti` (launched from an LMS).",
    )

    class Meta:
        model = Enrolment
        fields = ["course", "username", "learner_id", "source", "created_at"]
        read_only_fields = fields


class EnrolmentInputSerializer(FlatRequest, serializers.Serializer):
    username = StrictCharField(
        max_length=USERNAME_MAX, help_text="The learner's username; 400 if there is none."
    )
