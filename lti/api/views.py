"""LMS grade sync for instructors: a quiz's ScoreSync rows, their counts, and a resend.
Each view gates with quiz_get_for_instructor (404 for anyone but the quiz's instructors
and staff), calls one selector or service, and renders. An instructor scoped to an LMS
course sees, counts and resends only the rows of that LMS course (lti.selectors)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from drf_standardized_errors.openapi_validation_errors import extend_validation_errors
from rest_framework.response import Response

from api_common.pagination import Pagination, paginate
from assess.api.views.base import AssessAPIView
from assess.selectors import quiz_get_for_instructor
from lti import grades, selectors
from lti.api import docs
from lti.api import serializers as s


@extend_validation_errors(["invalid_choice"], field_name="state", methods=["get"])
class ScoreSyncListView(AssessAPIView):
    pagination_class = Pagination

    @extend_schema(
        summary="A quiz's LMS scores",
        description=docs.SCORES,
        parameters=[docs.QUIZ_ID, s.ScoreSyncQuerySerializer],
        responses=s.ScoreSyncSerializer(many=True),
    )
    def get(self, request, pk: int):
        quiz = quiz_get_for_instructor(user=request.user, pk=pk)
        # A plain dict, not the QueryDict: DRF reads an empty `?state=` from a form-like
        # input as absent, and the schema's enum promises it is refused.
        query = s.ScoreSyncQuerySerializer(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        rows = selectors.score_syncs_for_quiz(
            user=request.user, quiz=quiz, state=query.validated_data.get("state")
        )
        return paginate(self, rows, s.ScoreSyncSerializer)


class ScoreSyncSummaryView(AssessAPIView):
    @extend_schema(
        summary="Counts of a quiz's LMS scores",
        description=docs.SUMMARY,
        parameters=[docs.QUIZ_ID],
        responses=s.ScoreSyncCountsSerializer,
    )
    def get(self, request, pk: int):
        quiz = quiz_get_for_instructor(user=request.user, pk=pk)
        return Response(
            s.ScoreSyncCountsSerializer(
                selectors.score_sync_counts(user=request.user, quiz=quiz)
            ).data
        )


class ScoreSyncResendView(AssessAPIView):
    @extend_schema(
        summary="Resend a quiz's unsent LMS scores",
        description=docs.RESEND,
        parameters=[docs.QUIZ_ID],
        request=s.ResendInputSerializer,
        responses={200: s.ResendSerializer},
        examples=docs.RESEND_EXAMPLES,
    )
    def post(self, request, pk: int):
        quiz = quiz_get_for_instructor(user=request.user, pk=pk)
        data = s.ResendInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        ids = selectors.score_sync_ids_to_resend(
            user=request.user, quiz=quiz, ids=data.validated_data.get("ids")
        )
        n = grades.scores_resend(quiz=quiz, sync_ids=ids)
        return Response(s.ResendSerializer({"resent": n}).data)
