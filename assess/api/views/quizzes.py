"""Quizzes: list, create, read, publish, unpublish, close; their attempts and their
item analysis."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.response import Response

from api_common.errors import ErrorResponse409StartSerializer, error_responses
from api_common.pagination import Pagination, paginate
from assess import selectors
from assess.api import docs
from assess.api import serializers as s
from assess.api.views.base import (
    E403,
    AssessAPIView,
    created_or_existing,
    service_validation,
)
from assess.policy import feedback_visible
from assess.selectors.items import item_analysis_for_instructor
from assess.services.attempts import attempt_start
from assess.services.quizzes import (
    check_quiz_author,
    quiz_close,
    quiz_create,
    quiz_publish,
    quiz_unpublish,
)


# quiz_create checks what one field cannot: known course, lessons and templates, the
# feedback a mode allows, tries only with immediate feedback, the window's order.
@service_validation(
    "course",
    "lessons",
    "slots",
    "mode",
    "feedback",
    "tries_per_part",
    "penalty_per_try",
    "hint_penalty",
    "attempts_allowed",
    "opens_at",
    "closes_at",
    "pass_mark",
)
class QuizListView(AssessAPIView):
    pagination_class = Pagination

    @extend_schema(
        summary="List the quizzes you can take or teach",
        description=docs.QUIZ_LIST,
        responses=s.QuizSerializer(many=True),
    )
    def get(self, request):
        context = {"extended_closes": selectors.extended_closes_for_user(user=request.user)}
        rows = selectors.quiz_list_for_user(user=request.user)
        return paginate(self, rows, s.QuizSerializer, context=context)

    @extend_schema(
        summary="Create a quiz",
        description=docs.QUIZ_CREATE,
        request=s.QuizCreateSerializer,
        responses={201: s.QuizSerializer, 403: E403},
        examples=docs.QUIZ_EXAMPLES,
    )
    def post(self, request):
        check_quiz_author(request.user)  # before the body: a learner is 403, not 400
        data = s.QuizCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        quiz = quiz_create(
            user=request.user, spec=data.to_spec(), status=data.validated_data["status"]
        )
        return Response(s.QuizSerializer(quiz).data, status=status.HTTP_201_CREATED)


class QuizDetailView(AssessAPIView):
    @extend_schema(summary="Read a quiz", description=docs.QUIZ_GET, responses=s.QuizSerializer)
    def get(self, request, pk: int):
        quiz = selectors.quiz_get_for_user(user=request.user, pk=pk)
        context = {"extended_closes": selectors.extended_closes_for_user(user=request.user)}
        return Response(s.QuizSerializer(quiz, context=context).data)


class QuizAttemptsView(AssessAPIView):
    pagination_class = Pagination

    @extend_schema(
        summary="List attempts on a quiz",
        description=docs.ATTEMPT_LIST,
        responses=s.AttemptSummarySerializer(many=True),
    )
    def get(self, request, pk: int):
        quiz = selectors.quiz_get_for_user(user=request.user, pk=pk)
        attempts = selectors.attempt_list_for_user(user=request.user, quiz=quiz)
        now = timezone.now()

        def visible(attempt) -> bool:
            """Grades of others' attempts are for their teachers; one's own wait for
            the feedback policy."""
            return attempt.learner_id != request.user.pk or feedback_visible(
                attempt=attempt, now=now
            )

        return paginate(self, attempts, s.AttemptSummarySerializer, context={"visible": visible})

    @extend_schema(
        summary="Start or resume an attempt",
        description=docs.ATTEMPT_START,
        request=None,
        responses={
            **created_or_existing(s.AttemptStartSerializer, existing="Your open attempt, resumed."),
            **error_responses(403, c403=docs.ATTEMPT_START_403),
            409: OpenApiResponse(
                ErrorResponse409StartSerializer, description=docs.ATTEMPT_START_409
            ),
        },
    )
    def post(self, request, pk: int):
        quiz, facts = selectors.quiz_get_for_start(user=request.user, pk=pk)
        attempt, created = attempt_start(quiz=quiz, learner=request.user, facts=facts)
        questions = getattr(attempt, "started_questions", None)  # a new attempt's, built
        if questions is None:  # a resumed attempt's, as they stand
            questions = attempt.questions.filter(active=True).order_by("order", "id")
        body = s.AttemptStartSerializer(attempt, context={"questions": questions}).data
        return Response(body, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class QuizItemsView(AssessAPIView):
    pagination_class = Pagination

    @extend_schema(
        summary="Item analysis of a quiz",
        description=docs.ITEMS,
        responses=s.ItemStatsSerializer(many=True),
    )
    def get(self, request, pk: int):
        quiz = selectors.quiz_get_for_instructor(user=request.user, pk=pk)
        items = item_analysis_for_instructor(user=request.user, quiz=quiz).items
        return paginate(self, items, s.ItemStatsSerializer)


_LIFECYCLE_ERRORS = error_responses(403, 409, c403=docs.LIFECYCLE_403, c409=docs.LIFECYCLE_409)


def _lifecycle(summary: str, description: str):
    return extend_schema(
        summary=summary,
        description=description,
        request=None,
        responses={200: s.QuizSerializer, **_LIFECYCLE_ERRORS},
    )


def _quiz_body(quiz) -> dict:
    return s.QuizSerializer(quiz).data


# Each gates with quiz_get_for_instructor (404 for anyone who does not teach the quiz);
# the service decides the rest: 403 for an instructor scoped to an LMS course, 409 for
# a state that forbids it (assess.services.quizzes.lifecycle).


class QuizPublishView(AssessAPIView):
    @_lifecycle("Publish a quiz", docs.QUIZ_PUBLISH)
    def post(self, request, pk: int):
        quiz = selectors.quiz_get_for_instructor(user=request.user, pk=pk)
        return Response(_quiz_body(quiz_publish(user=request.user, quiz=quiz)))


class QuizUnpublishView(AssessAPIView):
    @_lifecycle("Unpublish a quiz (back to draft)", docs.QUIZ_UNPUBLISH)
    def post(self, request, pk: int):
        quiz = selectors.quiz_get_for_instructor(user=request.user, pk=pk)
        return Response(_quiz_body(quiz_unpublish(user=request.user, quiz=quiz)))


class QuizCloseView(AssessAPIView):
    @_lifecycle("Close a quiz now", docs.QUIZ_CLOSE)
    def post(self, request, pk: int):
        quiz = selectors.quiz_get_for_instructor(user=request.user, pk=pk)
        return Response(_quiz_body(quiz_close(user=request.user, quiz=quiz)))
