"""An incident drill in an attempt: take an action, submit the diagnosis."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import ParseError, UnsupportedMediaType, ValidationError
from rest_framework.response import Response

from assess import selectors
from assess.api import docs
from assess.api import serializers as s
from assess.api.serializers.drills import (
    DrillActionInputSerializer,
    DrillActionResultSerializer,
    DrillSubmitInputSerializer,
    step_body,
)
from assess.api.views.base import E409, E422, AssessAPIView, service_validation
from assess.policy import feedback_visible
from assess.selectors.drills import steps_of
from assess.services.drills import drill_act, drill_submit


def _gated(request, pk: int, qid: int, serializer_class):
    """The question (404 unless the caller may write to its attempt), then the body: a
    bad body is refused only once the question is known to be the caller's."""
    question = selectors.question_get_for_writer(user=request.user, attempt_pk=pk, pk=qid)
    try:
        data = serializer_class(data=request.data)
        if data.is_valid():
            return question, data.validated_data
        refusal: Exception = ValidationError(data.errors)
    except (ParseError, UnsupportedMediaType) as exc:
        refusal = exc
    raise refusal


@service_validation("action", "question")
class DrillActionView(AssessAPIView):
    @extend_schema(
        summary="Take an action in an incident drill",
        description=docs.DRILL_ACTION,
        request=DrillActionInputSerializer,
        responses={
            201: DrillActionResultSerializer,
            200: OpenApiResponse(
                DrillActionResultSerializer,
                description="A retry with the same idempotency key and action: the step "
                "it took; nothing was taken again.",
            ),
            409: E409,
            422: E422,
        },
    )
    def post(self, request, pk: int, qid: int):
        question, d = _gated(request, pk, qid, DrillActionInputSerializer)
        result = drill_act(
            attempt=question.attempt,
            question=question,
            action=d["action"],
            idempotency_key=d["idempotency_key"],
        )
        steps = steps_of(question)
        at = sum(x.minutes for x in steps if x.number < result.step.number)
        body = {"step": step_body(result.step, at), "minutes": sum(x.minutes for x in steps)}
        code = status.HTTP_200_OK if result.replayed else status.HTTP_201_CREATED
        return Response(body, status=code)


@service_validation("fault", "location", "remedy", "question")
class DrillSubmitView(AssessAPIView):
    @extend_schema(
        summary="Submit an incident drill's diagnosis and remedy",
        description=docs.DRILL_SUBMIT,
        request=DrillSubmitInputSerializer,
        responses={
            201: s.ReviewQuestionSerializer,
            200: OpenApiResponse(
                s.ReviewQuestionSerializer,
                description="A retry with the same idempotency key and choices: the "
                "question as it stands; nothing new was stored.",
            ),
            409: E409,
            422: E422,
        },
    )
    def post(self, request, pk: int, qid: int):
        question, d = _gated(request, pk, qid, DrillSubmitInputSerializer)
        attempt = question.attempt
        result = drill_submit(
            attempt=attempt,
            question=question,
            fault=d["fault"],
            location=d["location"],
            remedy=d["remedy"],
            idempotency_key=d["idempotency_key"],
        )
        review = selectors.question_review(user=request.user, attempt=attempt, question=question)
        visible = feedback_visible(attempt=attempt, now=timezone.now())
        body = s.ReviewQuestionSerializer(review, context={"visible": visible}).data
        code = status.HTTP_200_OK if result.replayed else status.HTTP_201_CREATED
        return Response(body, status=code)
