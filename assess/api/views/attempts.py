"""An attempt: read it, answer, finish, ask for a new variant, reveal a part."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from drf_standardized_errors.openapi_validation_errors import extend_validation_errors
from rest_framework import status
from rest_framework.exceptions import ParseError, UnsupportedMediaType, ValidationError
from rest_framework.response import Response

from api_common.errors import UnreadableAnswerSchema
from assess import selectors
from assess.api import docs
from assess.api import serializers as s
from assess.api.views.base import E409, E422, AssessAPIView, service_validation
from assess.policy import feedback_visible
from assess.services.attempts import attempt_finish
from assess.services.hints import hint_request
from assess.services.questions import question_new_variant
from assess.services.responses import response_submit
from assess.services.reveals import part_reveal


def _review(request, attempt) -> Response:
    rows = getattr(attempt, "closed_rows", None)  # a finish read them under its lock
    review = selectors.attempt_review(user=request.user, attempt=attempt, rows=rows)
    return Response(s.AttemptReviewSerializer(review).data)


class AttemptDetailView(AssessAPIView):
    @extend_schema(
        summary="Read an attempt", description=docs.ATTEMPT_GET, responses=s.AttemptReviewSerializer
    )
    def get(self, request, pk: int):
        return _review(request, selectors.attempt_get_for_user(user=request.user, pk=pk))


class AttemptFinishView(AssessAPIView):
    @extend_schema(
        summary="Finish an attempt",
        description=docs.FINISH,
        request=None,
        responses={200: s.AttemptReviewSerializer, 409: E409},
    )
    def post(self, request, pk: int):
        attempt = selectors.attempt_get_for_user(user=request.user, pk=pk, write=True)
        return _review(request, attempt_finish(attempt=attempt))


def _answer_or_refusal(request, pk: int) -> dict:
    """The answer's body, validated. A valid one is gated below with its question, in
    one query (question_get_for_writer); a body that fails, one that is not JSON
    included, is refused only once the attempt is known to be the caller's: someone
    else's attempt is a 404 whatever the body holds."""
    try:
        data = s.ResponseInputSerializer(data=request.data)
        if data.is_valid():
            return data.validated_data
        refusal: Exception = ValidationError(data.errors)
    except (ParseError, UnsupportedMediaType) as exc:
        refusal = exc
    selectors.attempt_get_for_user(user=request.user, pk=pk, write=True)
    raise refusal


@extend_validation_errors(["unreadable_answer"], field_name="answer", methods=["post"])
@service_validation("question", "part")
class AttemptResponsesView(AssessAPIView):
    """Its documented 400 carries the `valid` key of an unreadable answer."""

    schema = UnreadableAnswerSchema()

    @extend_schema(
        summary="Answer a part",
        description=docs.RESPONSE_SUBMIT,
        request=s.ResponseInputSerializer,
        responses={
            201: s.AnswerResultSerializer,
            200: OpenApiResponse(
                s.AnswerResultSerializer,
                description="A replay: this idempotency key was used before with the same "
                "question, part and answer. The first result, as the question stands now; "
                "nothing new was stored.",
            ),
            409: E409,
            422: E422,
        },
        examples=docs.RESPONSE_EXAMPLES,
    )
    def post(self, request, pk: int):
        d = _answer_or_refusal(request, pk)
        question = selectors.question_get_for_writer(
            user=request.user, attempt_pk=pk, pk=d["question"]
        )
        attempt = question.attempt
        result = response_submit(
            attempt=attempt,
            question=question,
            part=d["part"],
            text=d["answer"],
            idempotency_key=d["idempotency_key"],
            time_spent_ms=d.get("time_spent_ms"),
        )
        visible = feedback_visible(attempt=attempt, now=timezone.now())
        review = selectors.question_review(
            user=request.user,
            attempt=attempt,
            question=question,
            responses=result.responses,
            reveals=result.reveals,
        )
        context = {"visible": visible, "review": review}
        body = s.AnswerResultSerializer(result.response, context=context).data
        code = status.HTTP_200_OK if result.replayed else status.HTTP_201_CREATED
        return Response(body, status=code)


class NewVariantView(AssessAPIView):
    @extend_schema(
        summary="Replace a practice question with a new variant",
        description=docs.NEW_VARIANT,
        request=None,
        responses={201: s.QuestionSerializer, 409: E409},
    )
    def post(self, request, pk: int, qid: int):
        question = selectors.question_get_for_writer(user=request.user, attempt_pk=pk, pk=qid)
        attempt = question.attempt
        new = question_new_variant(attempt=attempt, question=question)
        return Response(s.QuestionSerializer(new).data, status=status.HTTP_201_CREATED)


@service_validation("part")
class RevealView(AssessAPIView):
    @extend_schema(
        summary="Show a part's answer",
        description=docs.REVEAL,
        request=s.RevealInputSerializer,
        responses={
            200: OpenApiResponse(
                s.ReviewQuestionSerializer, description="The question with the part's answer."
            ),
            409: E409,
        },
        examples=docs.REVEAL_EXAMPLES,
    )
    def post(self, request, pk: int, qid: int):
        question = selectors.question_get_for_writer(user=request.user, attempt_pk=pk, pk=qid)
        attempt = question.attempt
        data = s.RevealInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        part_reveal(attempt=attempt, question=question, part=data.validated_data["part"])
        review = selectors.question_review(user=request.user, attempt=attempt, question=question)
        return Response(s.ReviewQuestionSerializer(review, context={"visible": True}).data)


@service_validation("part")
class HintView(AssessAPIView):
    @extend_schema(
        summary="Ask for the question's next hint",
        description=docs.HINT,
        request=s.HintInputSerializer,
        responses={200: s.HintSerializer, 409: E409},
        examples=docs.HINT_EXAMPLES,
    )
    def post(self, request, pk: int, qid: int):
        question = selectors.question_get_for_writer(user=request.user, attempt_pk=pk, pk=qid)
        data = s.HintInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        shown = hint_request(
            attempt=question.attempt, question=question, part=data.validated_data["part"]
        )
        return Response(s.HintSerializer(shown).data)
