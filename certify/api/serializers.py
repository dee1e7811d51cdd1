"""What the certification API sends: tracks, a person's standing on a track, certificates
(the holder's and manager's view with evidence; the public view without), teams and
their readiness matrix. Read-only: the one request body is a revocation's reason."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api_common.fields import StrictCharField
from api_common.representation import HandWritten, PlainRepresentation
from api_common.request_serializers import FlatRequest
from assess.api.schema import NamedChoiceField
from certify.models import Certificate
from certify.requirements import Status
from certify.selectors import holder_public_name

CERT_STATES = Certificate.Status.choices
STANDINGS = [(s.value, s.value) for s in Status]


def display_name(user) -> str:
    """The name shown for a person: their full name, or their username without one."""
    return user.get_full_name().strip() or user.username


def certificate_state_field(**kwargs) -> NamedChoiceField:
    """valid, expired or revoked as of now: past its expiry a certificate reads expired
    even before the hourly task marks it so."""
    kwargs.setdefault(
        "help_text", "valid, expired (past expires_at) or revoked, as of the request."
    )
    return NamedChoiceField(enum_name="CertificateStateEnum", choices=CERT_STATES, **kwargs)


def standing_status_field(**kwargs) -> NamedChoiceField:
    kwargs.setdefault(
        "help_text",
        "certified (a valid certificate), expired or revoked (the latest certificate ended "
        "so), or in_progress (never certified).",
    )
    return NamedChoiceField(enum_name="StandingStatusEnum", choices=STANDINGS, **kwargs)


class TrackRefSerializer(PlainRepresentation, serializers.Serializer):
    slug = serializers.SlugField(help_text="The track's identifier.")
    title = serializers.CharField(help_text="The track's name.")


# ------------------------------------------------------------------------------ tracks


class TrackLessonSerializer(serializers.Serializer):
    slug = serializers.SlugField(help_text="The lesson's slug (GET /api/lessons/{slug}/).")
    title = serializers.CharField(help_text="The lesson's title.")


class TrackExamSerializer(serializers.Serializer):
    quiz = serializers.IntegerField(
        source="pk", help_text="The exam's quiz id: start it with POST /api/quizzes/{id}/attempts/."
    )
    time_limit_minutes = serializers.SerializerMethodField(
        help_text="Minutes an attempt may take; null for no limit."
    )
    pass_mark = serializers.FloatField(help_text="The score (0 to 1) that passes.")
    cooldown_days = serializers.SerializerMethodField(
        help_text="Days to wait after an attempt before the next; null for none."
    )
    questions = serializers.SerializerMethodField(help_text="Questions an attempt draws.")

    def get_time_limit_minutes(self, quiz) -> int | None:
        return int(quiz.time_limit.total_seconds() // 60) if quiz.time_limit else None

    def get_cooldown_days(self, quiz) -> float | None:
        return quiz.cooldown.total_seconds() / 86400 if quiz.cooldown else None

    def get_questions(self, quiz) -> int:
        return len(quiz.slots.all())


class TrackSerializer(serializers.Serializer):
    slug = serializers.SlugField(help_text="The track's identifier.")
    title = serializers.CharField(help_text="The track's name.")
    rotation = serializers.CharField(help_text="The on-call rotation a certificate admits to.")
    summary = serializers.CharField(help_text="Who the track is for and what it proves.")
    lessons = TrackLessonSerializer(
        many=True, help_text="The lessons whose skills must be mastered."
    )
    mastery_threshold = serializers.FloatField(
        help_text="P(mastered) every skill of the lessons must reach."
    )
    requires_memo = serializers.BooleanField(help_text="An approved capstone memo is required.")
    validity_days = serializers.IntegerField(help_text="Days a certificate stays valid.")
    exam = TrackExamSerializer(help_text="The certification exam.")


# ---------------------------------------------------------------------------- standing


class RequirementSerializer(serializers.Serializer):
    key = NamedChoiceField(
        enum_name="RequirementKeyEnum",
        choices=[("mastery",) * 2, ("exam",) * 2, ("memo",) * 2],
        help_text="mastery, exam or memo (memo only on tracks that require one).",
    )
    label = serializers.CharField(help_text="The requirement in words.")
    met = serializers.BooleanField(help_text="Whether it holds now.")
    detail = serializers.CharField(help_text="How far along: what holds and what is missing.")


class SkillStandingSerializer(serializers.Serializer):
    skill = serializers.CharField(help_text="The skill's name.")
    p_mastery = serializers.FloatField(help_text="The BKT estimate that the skill is known.")
    mastered = serializers.BooleanField(help_text="p_mastery is at the track's threshold.")


class CertificateBriefSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="The certificate's id.")
    status = certificate_state_field(source="state")
    issued_at = serializers.DateTimeField(help_text="When it was issued.")
    expires_at = serializers.DateTimeField(help_text="When it expires.")


class ProgressSerializer(serializers.Serializer):
    """From a certify.selectors.Cell."""

    track = serializers.SlugField(source="track.slug", help_text="The track's slug.")
    certified = serializers.BooleanField(
        source="standing.certified", help_text="You may join the rotation now."
    )
    status = standing_status_field(source="standing.status")
    until = serializers.DateTimeField(
        source="standing.until",
        allow_null=True,
        help_text="When the valid certificate expires; null when not certified.",
    )
    reason = serializers.CharField(
        source="standing.reason", help_text="Why (not) certified, in words."
    )
    next_step = serializers.CharField(
        source="standing.readiness.next_step", help_text="What to do next."
    )
    requirements = RequirementSerializer(
        source="standing.readiness.requirements", many=True, help_text="Each requirement."
    )
    skills = serializers.SerializerMethodField(help_text="Each skill of the track's lessons.")
    certificate = CertificateBriefSerializer(
        source="standing.certificate",
        allow_null=True,
        help_text="Your latest certificate of the track, whatever its state; null if none.",
    )

    @extend_schema_field(SkillStandingSerializer(many=True))
    def get_skills(self, cell) -> list[dict]:
        return SkillStandingSerializer(
            [
                {"skill": s, "p_mastery": p, "mastered": ok}
                for s, p, ok in cell.standing.readiness.skills
            ],
            many=True,
        ).data


class CheckSerializer(serializers.Serializer):
    """From a certify.selectors.Cell: the answer on-call tooling reads."""

    certified = serializers.BooleanField(
        source="standing.certified",
        help_text="True when the person holds a valid certificate of the track now: they "
        "may take the rotation.",
    )
    track = serializers.SlugField(source="track.slug", help_text="The track asked about.")
    until = serializers.DateTimeField(
        source="standing.until",
        allow_null=True,
        help_text="When the certificate expires (re-check before then); null when not certified.",
    )
    reason = serializers.CharField(
        source="standing.reason",
        help_text="Why, in words: 'Certified until …', or what ended the last certificate "
        "(expired, revoked with its reason) and what is still missing.",
    )
    status = standing_status_field(source="standing.status")


class CheckQuerySerializer(FlatRequest, serializers.Serializer):
    user = serializers.CharField(
        help_text="The username to check: yourself, or (for a manager) a member of an "
        "organisation you manage. Anyone else, or an unknown name, is a 404."
    )
    track = serializers.CharField(
        help_text="The track's slug (GET /api/tracks/). An unknown track is a 404."
    )


# ------------------------------------------------------------------------ certificates


class PersonSerializer(PlainRepresentation, serializers.Serializer):
    username = serializers.CharField(help_text="The person's username.")
    name = serializers.SerializerMethodField(help_text="Full name, or the username without one.")

    def get_name(self, user) -> str:
        return display_name(user)


class CertificateSerializer(serializers.Serializer):
    """The holder's and their managers' view: with the evidence and any revocation."""

    id = serializers.CharField(help_text="The certificate's id (also its public URL's).")
    holder = PersonSerializer(help_text="Whom it certifies.")
    track = TrackRefSerializer(help_text="The track certified.")
    status = serializers.SerializerMethodField(
        help_text="valid, expired (past expires_at) or revoked, as of the request."
    )
    issued_at = serializers.DateTimeField(help_text="When it was issued.")
    expires_at = serializers.DateTimeField(help_text="When it expires.")
    evidence = serializers.DictField(
        help_text="What it was issued on, frozen at issuance: skills with their estimates, "
        "the passed exam attempt and score, the approved memo (null where not required)."
    )
    revoked_at = serializers.DateTimeField(
        allow_null=True, help_text="When it was revoked; null unless revoked."
    )
    revoked_by = serializers.CharField(
        source="revoked_by.username",
        allow_null=True,
        default=None,
        help_text="Who revoked it; null unless revoked (or that account is gone).",
    )
    revoke_reason = serializers.CharField(
        help_text="Why it was revoked; empty unless revoked.", allow_blank=True
    )

    @extend_schema_field(certificate_state_field())
    def get_status(self, certificate) -> str:
        return certificate.state(self.context["now"])


class PublicCertificateSerializer(serializers.Serializer):
    """What anyone may see: whether the certificate stands, whose and of what. No
    evidence, scores, email or revocation reason."""

    id = serializers.CharField(help_text="The certificate's id.")
    status = serializers.SerializerMethodField(
        help_text="valid, expired (past expires_at) or revoked, as of the request."
    )
    track = TrackRefSerializer(help_text="The track certified.")
    holder = serializers.SerializerMethodField(
        help_text="The holder's full name, or their username without one; "
        '"a deleted account" once its holder deleted their account.'
    )
    issued_at = serializers.DateTimeField(help_text="When it was issued.")
    expires_at = serializers.DateTimeField(help_text="When it expires (or expired).")
    revoked_at = serializers.DateTimeField(
        allow_null=True, help_text="When it was revoked; null unless revoked."
    )

    @extend_schema_field(certificate_state_field())
    def get_status(self, certificate) -> str:
        return certificate.state(self.context["now"])

    def get_holder(self, certificate) -> str:
        return holder_public_name(certificate.holder)


class RevokeInputSerializer(FlatRequest, serializers.Serializer):
    reason = StrictCharField(
        max_length=2000,
        help_text="Why the certificate is revoked (required; the holder reads it).",
    )


# ------------------------------------------------------------------------------- teams


class OrganizationRefSerializer(PlainRepresentation, serializers.Serializer):
    slug = serializers.SlugField(help_text="The organisation's identifier.")
    name = serializers.CharField(help_text="The organisation's name.")


class TeamSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The team's id.")
    slug = serializers.SlugField(help_text="The team's slug within its organisation.")
    name = serializers.CharField(help_text="The team's name.")
    organization = OrganizationRefSerializer(help_text="The organisation it belongs to.")
    tracks = TrackRefSerializer(
        many=True, help_text="The tracks its rotation asks for; empty means every track."
    )


class TeamRefSerializer(PlainRepresentation, serializers.Serializer):
    id = serializers.IntegerField(help_text="The team's id.")
    name = serializers.CharField(help_text="The team's name.")
    organization = OrganizationRefSerializer(help_text="The organisation it belongs to.")


class ReadinessCellSerializer(HandWritten, serializers.Serializer):
    """From a certify.selectors.Cell.

    Written by hand (`to_representation`), not field by field: a team's readiness writes
    one per member and track (600 for 200 engineers on three tracks), and the plan's
    field-by-field path was a fifth of that request's time. The declared fields still
    describe the payload (the schema is made from them), and tests/certify/api/
    test_readiness_writer.py holds the output to DRF's own on every kind of value.
    """

    track = serializers.SlugField(source="track.slug", help_text="The track's slug.")
    certified = serializers.BooleanField(
        source="standing.certified", help_text="May take the rotation now."
    )
    status = standing_status_field(source="standing.status")
    until = serializers.DateTimeField(
        source="standing.until",
        allow_null=True,
        help_text="When the valid certificate expires; null when not certified.",
    )
    reason = serializers.CharField(source="standing.reason", help_text="Why, in words.")
    certificate_id = serializers.CharField(
        source="certificate.pk",
        allow_null=True,
        default=None,
        help_text="The latest certificate of the track, whatever its state; null if none.",
    )
    missing = serializers.SerializerMethodField(
        help_text="Keys of the requirements not met now (mastery, exam, memo). A valid "
        "certificate's own exam pass counts as met; once it expires or is revoked that pass "
        "is spent, and `exam` is listed until they pass again."
    )

    def get_missing(self, cell) -> list[str]:
        return [r.key for r in cell.standing.readiness.missing]

    def to_representation(self, cell) -> dict:
        standing, certificate = cell.standing, cell.certificate
        status, until, reason = standing.status, standing.until, standing.reason
        slug, key = cell.track.slug, None if certificate is None else certificate.pk
        fields = self._declared_fields
        return {
            "track": None if slug is None else str(slug),
            "certified": self._boolean("certified", standing.certified),
            "status": None if status is None else fields["status"].to_representation(status),
            "until": None if until is None else self._when("until", until),
            "reason": None if reason is None else str(reason),
            "certificate_id": None if key is None else str(key),
            "missing": self.get_missing(cell),
        }


class ReadinessRowSerializer(PlainRepresentation, serializers.Serializer):
    user = PersonSerializer(help_text="The team member.")
    cells = ReadinessCellSerializer(many=True, help_text="One per track, in `tracks` order.")


class ReadinessSerializer(PlainRepresentation, serializers.Serializer):
    team = TeamRefSerializer(help_text="The team.")
    tracks = TrackRefSerializer(many=True, help_text="The matrix's columns.")
    rows = ReadinessRowSerializer(many=True, help_text="One per member, by username.")
