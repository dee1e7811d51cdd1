"""Certification REST endpoints: tracks, your progress and certificates, the public
verification, revocation, team readiness and the on-call check. Each view parses, calls
one gate or selector (certify.selectors, orgs.selectors) or service, and renders."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from drf_standardized_errors.openapi_serializers import ErrorResponse404Serializer
from drf_standardized_errors.openapi_validation_errors import extend_validation_errors
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from api_common.errors import AutoSchema, error_responses
from api_common.pagination import Pagination, paginate
from api_common.service_errors import Conflict
from assess.api.views.base import AssessAPIView
from certify import selectors
from certify.api import docs
from certify.api import serializers as s
from certify.api.report_serializers import TrackReportSerializer
from certify.models import Track
from certify.report import track_report
from certify.services.certificates import certificate_revoke, certificate_revoker_check
from orgs import selectors as orgs

# What a query string's text field can be refused for (absent, empty, NUL or surrogate).
QUERY_CODES = [
    "required",
    "blank",
    "null_characters_not_allowed",
    "surrogate_characters_not_allowed",
]


class TrackListView(AssessAPIView):
    pagination_class = Pagination

    @extend_schema(
        summary="List certification tracks",
        description=docs.TRACKS,
        responses=s.TrackSerializer(many=True),
    )
    def get(self, request):
        return paginate(self, selectors.tracks_listed(), s.TrackSerializer)


class TrackProgressView(AssessAPIView):
    @extend_schema(
        summary="Your standing on a track",
        description=docs.PROGRESS,
        parameters=[docs.TRACK_SLUG],
        responses=s.ProgressSerializer,
    )
    def get(self, request, slug: str):
        track = selectors.track_get(slug=slug)
        cell = selectors.standing_for(user=request.user, track=track)
        return Response(s.ProgressSerializer(cell).data)


class TrackPsychometricsView(AssessAPIView):
    @extend_schema(
        summary="A track's psychometrics report (staff)",
        description=docs.PSYCHOMETRICS,
        parameters=[docs.TRACK_SLUG],
        responses=TrackReportSerializer,
    )
    def get(self, request, slug: str):
        if not request.user.is_staff:
            raise Track.DoesNotExist("No track report for you here.")
        track = selectors.track_get(slug=slug)
        return Response(TrackReportSerializer(track_report(track=track)).data)


class CertificateListView(AssessAPIView):
    pagination_class = Pagination

    @extend_schema(
        summary="Your certificates",
        description=docs.CERTIFICATES,
        responses=s.CertificateSerializer(many=True),
    )
    def get(self, request):
        rows = selectors.certificates_for_holder(user=request.user).select_related(
            "holder", "revoked_by"
        )
        return paginate(self, rows, s.CertificateSerializer, context={"now": timezone.now()})


class CertificateVerifyView(APIView):
    """Public: no authentication classes, so a stale token in the header cannot turn a
    verification into a 401. The project has no anonymous throttle to apply."""

    permission_classes = [AllowAny]
    authentication_classes: list = []
    schema = AutoSchema()

    @extend_schema(
        summary="Verify a certificate",
        description=docs.VERIFY,
        parameters=[docs.CERTIFICATE_ID],
        responses=s.PublicCertificateSerializer,
        auth=[],
    )
    def get(self, request, pk: str):
        certificate = selectors.certificate_get_public(pk=pk)
        context = {"now": timezone.now()}
        return Response(s.PublicCertificateSerializer(certificate, context=context).data)


class CertificateRevokeView(AssessAPIView):
    @extend_schema(
        summary="Revoke a certificate",
        description=docs.REVOKE,
        parameters=[docs.CERTIFICATE_ID],
        request=s.RevokeInputSerializer,
        responses={
            200: s.CertificateSerializer,
            **error_responses(403, 409, c403=docs.C403_REVOKE, c409=docs.C409_REVOKE),
        },
    )
    def post(self, request, pk: str):
        certificate = selectors.certificate_get_for_user(user=request.user, pk=pk)  # the gate
        certificate_revoker_check(actor=request.user, certificate=certificate)  # before the body
        data = s.RevokeInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        now = timezone.now()
        revoked = certificate_revoke(
            actor=request.user,
            certificate=certificate,
            reason=data.validated_data["reason"],
            now=now,
        )
        if revoked.revoked_at != now:  # revoked before (or by a racing request)
            raise Conflict(docs.C409_REVOKE)
        return Response(s.CertificateSerializer(revoked, context={"now": now}).data)


class TeamListView(AssessAPIView):
    pagination_class = Pagination

    @extend_schema(
        summary="Teams you manage",
        description=docs.TEAMS,
        responses=s.TeamSerializer(many=True),
    )
    def get(self, request):
        return paginate(self, orgs.teams_for_manager(user=request.user), s.TeamSerializer)


class TeamReadinessView(AssessAPIView):
    @extend_schema(
        summary="A team's readiness",
        description=docs.READINESS,
        parameters=[docs.TEAM_ID],
        responses=s.ReadinessSerializer,
    )
    def get(self, request, pk: int):
        team = orgs.team_get_for_manager(user=request.user, pk=pk)
        members = orgs.team_member_users(team=team)
        tracks = selectors.tracks_for_team(team=team)
        cells = selectors.standings(user_ids=[u.pk for u in members], tracks=tracks)
        rows = [
            {"user": user, "cells": [cells[(user.pk, t.pk)] for t in tracks]} for user in members
        ]
        data = {"team": team, "tracks": tracks, "rows": rows}
        return Response(s.ReadinessSerializer(data).data)


@extend_validation_errors(QUERY_CODES, field_name="user", methods=["get"])
@extend_validation_errors(QUERY_CODES, field_name="track", methods=["get"])
class CertificationCheckView(AssessAPIView):
    @extend_schema(
        summary="Check a person's certification",
        description=docs.CHECK,
        parameters=[s.CheckQuerySerializer],
        responses={
            200: s.CheckSerializer,
            404: OpenApiResponse(ErrorResponse404Serializer, description=docs.C404_CHECK),
        },
    )
    def get(self, request):
        query = s.CheckQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        person = orgs.person_get_for(asker=request.user, username=query.validated_data["user"])
        track = selectors.track_get(slug=query.validated_data["track"])
        cell = selectors.standing_for(user=person, track=track)
        return Response(s.CheckSerializer(cell).data)
