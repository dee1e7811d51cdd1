"""Assess REST endpoints: parse, call one selector or service, render.

Objects the user may not see are 404 (selectors raise DoesNotExist); state conflicts are
409; unreadable answers 400 with the reader's message.
"""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from drf_standardized_errors.openapi_serializers import ErrorResponse403Serializer
from rest_framework import exceptions, status
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from assess import selectors
from assess.analysis import item_analysis
from assess.api import serializers as s
from assess.errors import (
    InvalidInput,
)
from assess.policy import feedback_visible
from assess.services.attempts import attempt_finish, attempt_start
from assess.services.enrolments import enrolment_add, enrolment_remove, enrolment_self
from assess.services.questions import practice_question_add, question_new_variant
from assess.services.quizzes import quiz_create
from assess.services.responses import response_submit
from assess.services.reveals import part_reveal
from config.api_errors import error_responses
from config.parsers import JSONParser as SafeJSONParser
from config.throttles import SIGN_IN_THROTTLES
from curricula.models import Course
from curricula.selectors import lesson_get

_403 = OpenApiResponse(ErrorResponse403Serializer, description="Not allowed to do this.")
_409 = error_responses(409)[409]
_422 = error_responses(422)[422]


class AssessAPIView(APIView):
    """Errors (the services' exceptions included) are mapped and formatted by the one
    API exception handler, config.api_errors."""

    permission_classes = [IsAuthenticated]


@extend_schema(request=AuthTokenSerializer, responses=s.TokenSerializer)
class TokenView(ObtainAuthToken):
    """POST username and password, get {"token"} for `Authorization: Token <token>`.

    Throttled per posted username and per client IP (429 with Retry-After); JSON that is
    unreadable or nested too deep is a 400 (config/throttles.py, config/parsers.py)."""

    throttle_classes = SIGN_IN_THROTTLES
    parser_classes = (FormParser, MultiPartParser, SafeJSONParser)


class QuizListView(AssessAPIView):
    @extend_schema(responses=s.QuizSerializer(many=True))
    def get(self, request):
        quizzes = selectors.quiz_list_for_user(user=request.user)
        return Response(s.QuizSerializer(quizzes, many=True).data)

    @extend_schema(request=s.QuizCreateSerializer, responses={201: s.QuizSerializer})
    def post(self, request):
        data = s.QuizCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        quiz = quiz_create(user=request.user, spec=data.to_spec())
        return Response(s.QuizSerializer(quiz).data, status=status.HTTP_201_CREATED)


class QuizDetailView(AssessAPIView):
    @extend_schema(responses={200: s.QuizSerializer})
    def get(self, request, pk: int):
        quiz = selectors.quiz_get_for_user(user=request.user, pk=pk)
        return Response(s.QuizSerializer(quiz).data)


class QuizAttemptsView(AssessAPIView):
    @extend_schema(responses={200: s.AttemptSummarySerializer(many=True)})
    def get(self, request, pk: int):
        quiz = selectors.quiz_get_for_user(user=request.user, pk=pk)
        attempts = selectors.attempt_list_for_user(user=request.user, quiz=quiz)
        now = timezone.now()

        def visible(attempt) -> bool:
            return attempt.learner_id != request.user.pk or feedback_visible(
                attempt=attempt, now=now
            )

        return Response(
            s.AttemptSummarySerializer(attempts, many=True, context={"visible": visible}).data
        )

    @extend_schema(
        request=None,
        responses={
            201: s.AttemptStartSerializer,
            200: OpenApiResponse(s.AttemptStartSerializer, description="An open one, resumed."),
            409: _409,
        },
    )
    def post(self, request, pk: int):
        quiz = selectors.quiz_get_for_user(user=request.user, pk=pk)
        attempt, created = attempt_start(quiz=quiz, learner=request.user)
        questions = attempt.questions.filter(active=True).order_by("order", "id")
        body = s.AttemptStartSerializer(attempt, context={"questions": questions}).data
        return Response(body, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class QuizItemsView(AssessAPIView):
    @extend_schema(responses={200: s.ItemStatsSerializer(many=True)})
    def get(self, request, pk: int):
        quiz = selectors.quiz_get_for_instructor(user=request.user, pk=pk)
        return Response(s.ItemStatsSerializer(item_analysis(quiz=quiz), many=True).data)


def _review(request, attempt) -> Response:
    review = selectors.attempt_review(user=request.user, attempt=attempt)
    return Response(s.AttemptReviewSerializer(review).data)


class AttemptDetailView(AssessAPIView):
    @extend_schema(responses={200: s.AttemptReviewSerializer})
    def get(self, request, pk: int):
        return _review(request, selectors.attempt_get_for_user(user=request.user, pk=pk))


class AttemptFinishView(AssessAPIView):
    @extend_schema(request=None, responses={200: s.AttemptReviewSerializer, 409: _409})
    def post(self, request, pk: int):
        attempt = selectors.attempt_get_for_user(user=request.user, pk=pk, write=True)
        return _review(request, attempt_finish(attempt=attempt))


class AttemptResponsesView(AssessAPIView):
    @extend_schema(
        request=s.ResponseInputSerializer,
        responses={
            201: s.AnswerResultSerializer,
            200: OpenApiResponse(s.AnswerResultSerializer, description="Replay of a key."),
            409: _409,
            422: _422,
        },
    )
    def post(self, request, pk: int):
        attempt = selectors.attempt_get_for_user(user=request.user, pk=pk, write=True)
        data = s.ResponseInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        d = data.validated_data
        question = selectors.question_get_for_attempt(attempt=attempt, pk=d["question"])
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
    @extend_schema(request=None, responses={201: s.QuestionSerializer, 409: _409})
    def post(self, request, pk: int, qid: int):
        attempt = selectors.attempt_get_for_user(user=request.user, pk=pk, write=True)
        question = selectors.question_get_for_attempt(attempt=attempt, pk=qid)
        new = question_new_variant(attempt=attempt, question=question)
        return Response(s.QuestionSerializer(new).data, status=status.HTTP_201_CREATED)


class RevealView(AssessAPIView):
    @extend_schema(
        request=s.RevealInputSerializer,
        responses={
            200: OpenApiResponse(
                s.ReviewQuestionSerializer, description="The question with the part's answer."
            ),
            409: _409,
        },
    )
    def post(self, request, pk: int, qid: int):
        """Show a part's answer (immediate feedback only); its remaining tries are
        forfeit. Asking again is harmless."""
        attempt = selectors.attempt_get_for_user(user=request.user, pk=pk, write=True)
        question = selectors.question_get_for_attempt(attempt=attempt, pk=qid)
        data = s.RevealInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        part_reveal(attempt=attempt, question=question, part=data.validated_data["part"])
        review = selectors.question_review(user=request.user, attempt=attempt, question=question)
        return Response(s.ReviewQuestionSerializer(review, context={"visible": True}).data)


class MyMasteryView(AssessAPIView):
    @extend_schema(responses=s.MasterySerializer)
    def get(self, request):
        return Response(s.MasterySerializer(selectors.mastery_for_user(user=request.user)).data)


def _course(slug: str) -> Course:
    return Course.objects.get(slug=slug)


class CourseEnrolView(AssessAPIView):
    @extend_schema(
        request=None,
        responses={
            201: s.EnrolmentSerializer,
            200: OpenApiResponse(s.EnrolmentSerializer, description="Already enrolled."),
            403: _403,
        },
    )
    def post(self, request, slug: str):
        """Enrol yourself, where the course allows it (403 otherwise)."""
        enrolment, created = enrolment_self(user=request.user, course=_course(slug))
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(s.EnrolmentSerializer(enrolment).data, status=code)


class CourseEnrolmentsView(AssessAPIView):
    @extend_schema(responses={200: s.EnrolmentSerializer(many=True)})
    def get(self, request, slug: str):
        """The course's learners: its instructors and staff only (404 for others)."""
        rows = selectors.enrolments_for_instructor(user=request.user, course=_course(slug))
        return Response(s.EnrolmentSerializer(rows, many=True).data)

    @extend_schema(
        request=s.EnrolmentInputSerializer,
        responses={
            201: s.EnrolmentSerializer,
            200: OpenApiResponse(s.EnrolmentSerializer, description="Already enrolled."),
        },
    )
    def post(self, request, slug: str):
        """Enrol a learner by username."""
        course = _course(slug)
        selectors.enrolments_for_instructor(user=request.user, course=course)  # the gate
        data = s.EnrolmentInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        enrolment, created = enrolment_add(
            actor=request.user, course=course, username=data.validated_data["username"]
        )
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(s.EnrolmentSerializer(enrolment).data, status=code)


class CourseEnrolmentDetailView(AssessAPIView):
    @extend_schema(responses={204: None})
    def delete(self, request, slug: str, username: str):
        """Remove a learner; their attempts and mastery stay."""
        course = _course(slug)
        selectors.enrolments_for_instructor(user=request.user, course=course)  # the gate
        try:
            removed = enrolment_remove(actor=request.user, course=course, username=username)
        except InvalidInput:
            removed = False
        if not removed:
            raise exceptions.NotFound()
        return Response(status=status.HTTP_204_NO_CONTENT)


class LessonPracticeView(AssessAPIView):
    @extend_schema(request=None, responses={201: s.PracticeQuestionSerializer})
    def post(self, request, slug: str):
        practice = practice_question_add(learner=request.user, lesson=lesson_get(slug=slug))
        return Response(s.PracticeQuestionSerializer(practice).data, status=201)
