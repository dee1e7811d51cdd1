"""Capstone memos: the learner's brief, submitting a memo and its later versions, reading
a memo with its reviews, the instructor's decision, and the list (a learner's own memo,
an instructor's review queue)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from drf_standardized_errors.openapi_serializers import ErrorResponse404Serializer
from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from api_common.errors import error_responses
from api_common.pagination import Pagination, paginate
from api_common.service_errors import NotPermitted
from assess.api.views.base import AssessAPIView, created_or_existing, service_validation
from capstone.api import docs
from capstone.api import serializers as s
from capstone.selectors import (
    capstone_for_learner,
    memo_for_learner,
    memo_get_for_user,
    memo_list_for_user,
    memo_versions_for_user,
)
from capstone.services import (
    capstone_brief,
    capstone_course,
    capstone_start,
    capstone_start_check,
    memo_create,
    memo_decide,
    memo_decider_check,
    memo_version_add,
)


def _memo(request, pk: int, code: int = status.HTTP_200_OK) -> Response:
    """The memo as stored now (after a write: with the version or decision just made,
    and, when reviews run in-process, the review already written)."""
    memo = memo_get_for_user(user=request.user, pk=pk)
    return Response(s.MemoSerializer(memo).data, status=code)


def _brief(request, capstone, code: int = status.HTTP_200_OK) -> Response:
    memo = memo_for_learner(user=request.user, course_id=capstone.course_id)
    data = {
        "capstone": capstone,
        "brief": capstone_brief(capstone),
        "memo_id": memo.pk if memo else None,
    }
    return Response(s.CapstoneBriefSerializer(data).data, status=code)


class CapstoneBriefView(AssessAPIView):
    """GET reads a capstone the learner has started and writes nothing (issue 33: it
    used to enrol whoever looked and draw them a brief); POST starts it."""

    @extend_schema(
        summary="Your capstone brief",
        description=docs.CAPSTONE_BRIEF,
        responses={
            200: s.CapstoneBriefSerializer,
            404: OpenApiResponse(ErrorResponse404Serializer, description=docs.C404_CAPSTONE),
            **error_responses(409, c409=docs.C409_NO_COURSE),
        },
    )
    def get(self, request):
        capstone = capstone_for_learner(user=request.user, course_id=capstone_course().pk)
        if capstone is None:
            raise NotFound(docs.C404_CAPSTONE)
        return _brief(request, capstone)

    @extend_schema(
        summary="Start your capstone",
        description=docs.CAPSTONE_START,
        request=None,
        responses={
            **created_or_existing(
                s.CapstoneBriefSerializer, existing="Your capstone, started before: its brief."
            ),
            **error_responses(403, 409, c403=docs.C403_ENROL, c409=docs.C409_NO_COURSE),
        },
    )
    def post(self, request):
        capstone, created = capstone_start(learner=request.user)
        return _brief(request, capstone, status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class MemoListView(AssessAPIView):
    pagination_class = Pagination

    @extend_schema(
        summary="List memos",
        description=docs.MEMO_LIST,
        responses=s.MemoSummarySerializer(many=True),
    )
    def get(self, request):
        return paginate(self, memo_list_for_user(user=request.user), s.MemoSummarySerializer)

    @extend_schema(
        summary="Submit your capstone memo",
        description=docs.MEMO_SUBMIT,
        request=s.MemoInputSerializer,
        responses={
            201: s.MemoSerializer,
            **error_responses(403, 409, c403=docs.C403_ENROL, c409=docs.C409_SUBMIT),
        },
        examples=docs.MEMO_EXAMPLES,
    )
    def post(self, request):
        capstone_start_check(learner=request.user, course=capstone_course())  # before the body
        data = s.MemoInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        version = memo_create(learner=request.user, markdown=data.validated_data["markdown"])
        return _memo(request, version.memo_id, status.HTTP_201_CREATED)


class MemoDetailView(AssessAPIView):
    @extend_schema(
        summary="Read a memo",
        description=docs.MEMO_GET,
        parameters=[docs.MEMO_ID],
        responses=s.MemoSerializer,
    )
    def get(self, request, pk: int):
        return _memo(request, pk)


class MemoVersionsView(AssessAPIView):
    pagination_class = Pagination

    @extend_schema(
        summary="A memo's versions, a page at a time",
        description=docs.MEMO_VERSIONS,
        parameters=[docs.MEMO_ID],
        responses=s.MemoVersionSerializer(many=True),
    )
    def get(self, request, pk: int):
        versions = memo_versions_for_user(user=request.user, pk=pk)
        return paginate(self, versions, s.MemoVersionSerializer)

    @extend_schema(
        summary="Resubmit your memo",
        description=docs.MEMO_VERSION_ADD,
        parameters=[docs.MEMO_ID],
        request=s.MemoInputSerializer,
        responses={
            201: OpenApiResponse(s.MemoSerializer, description="The memo with the new version."),
            **error_responses(
                403, 409, 429, c403=docs.C403_AUTHOR, c409=docs.C409_VERSION, c429=docs.C429_VERSION
            ),
        },
        examples=docs.MEMO_EXAMPLES,
    )
    def post(self, request, pk: int):
        memo = memo_get_for_user(user=request.user, pk=pk)
        if memo.capstone.learner_id != request.user.pk:  # before the body: 403, not 400
            raise NotPermitted("Only the memo's author adds versions to it.")
        data = s.MemoInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        memo_version_add(learner=request.user, memo=memo, markdown=data.validated_data["markdown"])
        return _memo(request, pk, status.HTTP_201_CREATED)


@service_validation("adjustments.INDEX.criterion", "adjustments.INDEX.points")
class MemoDecisionView(AssessAPIView):
    @extend_schema(
        summary="Decide on a memo",
        description=docs.MEMO_DECIDE,
        parameters=[docs.MEMO_ID],
        request=s.MemoDecisionInputSerializer,
        responses={
            201: OpenApiResponse(s.MemoSerializer, description="The memo with the decision."),
            **error_responses(403, 409, c403=docs.C403_INSTRUCTOR, c409=docs.C409_UNREVIEWED),
        },
        examples=docs.MEMO_DECISION_EXAMPLES,
    )
    def post(self, request, pk: int):
        memo = memo_get_for_user(user=request.user, pk=pk)
        memo_decider_check(instructor=request.user, memo=memo)  # before the body: 403
        data = s.MemoDecisionInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        d = data.validated_data
        memo_decide(
            instructor=request.user,
            memo=memo,
            decision=d["decision"],
            comment=d["comment"],
            adjustments=[dict(a) for a in d["adjustments"]],
        )
        return _memo(request, pk, status.HTTP_201_CREATED)
