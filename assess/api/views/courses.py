"""Enrolment in courses, lesson practice, and the learner's own mastery."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, status
from rest_framework.response import Response

from api_common.errors import error_responses
from api_common.pagination import Pagination, paginate
from api_common.service_errors import InvalidInput
from assess import selectors
from assess.api import docs
from assess.api import serializers as s
from assess.api.views.base import (
    E403,
    E409,
    AssessAPIView,
    created_or_existing,
    service_validation,
)
from assess.services.enrolments import (
    enrolment_add,
    enrolment_manager_check,
    enrolment_remove,
    enrolment_self,
)
from assess.services.practice_sessions import practice_question_open_ended
from curricula.models import Course
from curricula.selectors import lesson_get


def _course(slug: str) -> Course:
    return Course.objects.get(slug=slug)


class MyMasteryView(AssessAPIView):
    @extend_schema(summary="Your mastery", description=docs.MASTERY, responses=s.MasterySerializer)
    def get(self, request):
        return Response(s.MasterySerializer(selectors.mastery_for_user(user=request.user)).data)


class CourseEnrolView(AssessAPIView):
    @extend_schema(
        summary="Enrol yourself in a course",
        description=docs.ENROL,
        request=None,
        responses={
            **created_or_existing(s.EnrolmentSerializer, existing="Already enrolled."),
            403: E403,
        },
    )
    def post(self, request, slug: str):
        enrolment, created = enrolment_self(user=request.user, course=_course(slug))
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(s.EnrolmentSerializer(enrolment).data, status=code)


@service_validation("username")
class CourseEnrolmentsView(AssessAPIView):
    pagination_class = Pagination

    @extend_schema(
        summary="List a course's learners",
        description=docs.ENROLMENTS,
        responses=s.EnrolmentSerializer(many=True),
    )
    def get(self, request, slug: str):
        rows = selectors.enrolments_for_instructor(user=request.user, course=_course(slug))
        return paginate(self, rows, s.EnrolmentSerializer)

    @extend_schema(
        summary="Enrol a learner",
        description=docs.ENROLMENT_ADD,
        request=s.EnrolmentInputSerializer,
        responses={
            **created_or_existing(s.EnrolmentSerializer, existing="Already enrolled."),
            **error_responses(403, c403=docs.C403_ROSTER),
        },
        examples=docs.ENROLMENT_EXAMPLES,
    )
    def post(self, request, slug: str):
        course = _course(slug)
        selectors.enrolments_for_instructor(user=request.user, course=course)  # the gate
        enrolment_manager_check(actor=request.user, course=course)  # before the body: 403
        data = s.EnrolmentInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        enrolment, created = enrolment_add(
            actor=request.user, course=course, username=data.validated_data["username"]
        )
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(s.EnrolmentSerializer(enrolment).data, status=code)


class CourseEnrolmentDetailView(AssessAPIView):
    @extend_schema(
        summary="Remove a learner from a course",
        description=docs.ENROLMENT_REMOVE,
        responses={204: None, **error_responses(403, c403=docs.C403_ROSTER)},
    )
    def delete(self, request, slug: str, username: str):
        course = _course(slug)
        selectors.enrolments_for_instructor(user=request.user, course=course)  # the gate
        try:
            removed = enrolment_remove(actor=request.user, course=course, username=username)
        except InvalidInput:  # no such user: as not enrolled, a 404 on the path
            removed = False
        if not removed:
            raise exceptions.NotFound()
        return Response(status=status.HTTP_204_NO_CONTENT)


class LessonPracticeView(AssessAPIView):
    @extend_schema(
        summary="Practise a lesson",
        description=docs.PRACTICE,
        request=None,
        responses={201: s.PracticeQuestionSerializer, 403: E403, 409: E409},
    )
    def post(self, request, slug: str):
        lesson = lesson_get(slug=slug)
        practice = practice_question_open_ended(learner=request.user, lesson=lesson)
        return Response(s.PracticeQuestionSerializer(practice).data, status=201)
