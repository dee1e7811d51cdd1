"""Per-learner extensions of a quiz: its instructors list, set and remove them."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from drf_spectacular.utils import OpenApiParameter, OpenApiTypes, extend_schema
from drf_standardized_errors.openapi_validation_errors import extend_validation_errors
from rest_framework import exceptions, status
from rest_framework.response import Response

from api_common.errors import error_responses
from api_common.pagination import Pagination, paginate
from api_common.service_errors import InvalidInput
from assess import selectors
from assess.api import docs
from assess.api import serializers as s
from assess.api.views.base import AssessAPIView
from assess.selectors.duties import Judgement, refuse_own_work
from assess.services.extensions import extension_grant, extension_revoke

LEARNER_ID = OpenApiParameter(
    "learner_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The learner's user id."
)
# The service's field names as the request spells them.
_FIELDS = {"extra_time": "extra_time_minutes"}


def _learner(learner_id: int):
    user = get_user_model().objects.filter(pk=learner_id).first()
    if user is None:
        raise InvalidInput(f"No user has the id {learner_id}.", field="learner")
    return user


class QuizExtensionsView(AssessAPIView):
    pagination_class = Pagination

    @extend_schema(
        summary="List a quiz's extensions",
        description=docs.EXTENSIONS,
        responses=s.ExtensionSerializer(many=True),
    )
    def get(self, request, pk: int):
        quiz = selectors.quiz_get_for_instructor(user=request.user, pk=pk)
        rows = selectors.extensions_for_instructor(user=request.user, quiz=quiz)
        return paginate(self, rows, s.ExtensionSerializer)


# extension_grant checks what one field cannot: the learner (known, enrolled), extra
# time only with a time limit, a close after the quiz's and in the future.
@extend_validation_errors(["invalid"], field_name="learner", methods=["put"])
@extend_validation_errors(["invalid"], field_name="extra_time_minutes", methods=["put"])
@extend_validation_errors(["invalid"], field_name="closes_at", methods=["put"])
class QuizExtensionDetailView(AssessAPIView):
    @extend_schema(
        summary="Grant or change a learner's extension",
        description=docs.EXTENSION_PUT,
        parameters=[LEARNER_ID],
        request=s.ExtensionInputSerializer,
        responses={200: s.ExtensionSerializer, **error_responses(403, c403=docs.C403_OWN)},
        examples=docs.EXTENSION_EXAMPLES,
    )
    def put(self, request, pk: int, learner_id: int):
        quiz = selectors.quiz_get_for_instructor(user=request.user, pk=pk)
        refuse_own_work(actor=request.user, subject_id=learner_id, judgement=Judgement.EXTENSION)
        data = s.ExtensionInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        learner = _learner(learner_id)
        try:
            extension = extension_grant(
                user=request.user, quiz=quiz, learner=learner, **data.to_kwargs()
            )
        except ValidationError as err:
            raise ValidationError(
                {_FIELDS.get(k, k): v for k, v in err.message_dict.items()}
            ) from None
        return Response(s.ExtensionSerializer(extension).data)

    @extend_schema(
        summary="Remove a learner's extension",
        description=docs.EXTENSION_DELETE,
        parameters=[LEARNER_ID],
        responses={204: None, **error_responses(403, c403=docs.C403_OWN)},
    )
    def delete(self, request, pk: int, learner_id: int):
        quiz = selectors.quiz_get_for_instructor(user=request.user, pk=pk)
        learner = get_user_model().objects.filter(pk=learner_id).first()
        if learner is None or not extension_revoke(user=request.user, quiz=quiz, learner=learner):
            raise exceptions.NotFound()
        return Response(status=status.HTTP_204_NO_CONTENT)
