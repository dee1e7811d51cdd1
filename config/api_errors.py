"""One error format for the whole API (drf-standardized-errors), and the mapping of the
services' own exceptions onto it.

Every error body is `{"type": "validation_error" | "client_error" | "server_error",
"errors": [{"code", "detail", "attr"}]}`; `attr` names the field (nested fields joined
by "."), or is null. Services raise plain Python exceptions (assess.errors, Django's
ObjectDoesNotExist and ValidationError) so that pages, commands and tasks can call them
too; this handler is the one place that turns them into statuses:

    ObjectDoesNotExist -> 404     NotPermitted -> 403      Conflict -> 409
    InvalidInput, Django ValidationError -> 400 (validation_error)
    IdempotencyMismatch -> 422    UnreadableAnswer -> 400 with "valid": false

drf-standardized-errors documents 400/401/403/404/405/406/415/429/500 on every
operation by itself; 409 and 422 are declared per operation with `error_responses()`.
"""

from __future__ import annotations

from django.core.exceptions import ObjectDoesNotExist
from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.utils import OpenApiResponse
from drf_standardized_errors.formatter import ExceptionFormatter
from drf_standardized_errors.handler import ExceptionHandler
from drf_standardized_errors.openapi_serializers import ClientErrorEnum, ValidationErrorEnum
from rest_framework import exceptions, serializers, status

from assess.errors import Conflict, IdempotencyMismatch, InvalidInput, NotPermitted
from assess.errors import UnreadableAnswer as UnreadableAnswerError


class ConflictError(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "The attempt or quiz does not allow this now."
    default_code = "conflict"


class IdempotencyKeyReused(exceptions.APIException):
    status_code = status.HTTP_422_UNPROCESSABLE_ENTITY
    default_detail = "This idempotency key was used for a different request."
    default_code = "idempotency_key_reused"


class UnreadableAnswer(exceptions.ValidationError):
    """A 400 validation error on `answer`, whose body also says `"valid": false`."""

    default_code = "unreadable_answer"

    def __init__(self, detail: str):
        super().__init__({"answer": [detail]}, code=self.default_code)


def _django_validation(exc: DjangoValidationError) -> exceptions.ValidationError:
    if hasattr(exc, "error_dict"):
        return exceptions.ValidationError(exc.message_dict)
    return exceptions.ValidationError(exc.messages)


class ApiExceptionHandler(ExceptionHandler):
    def convert_known_exceptions(self, exc: Exception) -> Exception:
        if isinstance(exc, ObjectDoesNotExist):
            return exceptions.NotFound()
        if isinstance(exc, Conflict):
            return ConflictError(str(exc))
        if isinstance(exc, IdempotencyMismatch):
            return IdempotencyKeyReused(str(exc))
        if isinstance(exc, UnreadableAnswerError):
            return UnreadableAnswer(str(exc))
        if isinstance(exc, InvalidInput):
            return exceptions.ValidationError({exc.field or "non_field_errors": [str(exc)]})
        if isinstance(exc, NotPermitted):
            return exceptions.PermissionDenied(str(exc))
        if isinstance(exc, DjangoValidationError):
            return _django_validation(exc)
        return super().convert_known_exceptions(exc)


class ApiExceptionFormatter(ExceptionFormatter):
    def format_error_response(self, error_response):
        body = super().format_error_response(error_response)
        if isinstance(self.exc, UnreadableAnswer):
            body["valid"] = False
        return body


# ------------------------------------------------------------------ schema components


class _Error(serializers.Serializer):
    code = serializers.CharField()
    detail = serializers.CharField()
    attr = serializers.CharField(allow_null=True)


class ErrorResponse409Serializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=ClientErrorEnum.choices)
    errors = _Error(many=True)


class ErrorResponse422Serializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=ClientErrorEnum.choices)
    errors = _Error(many=True)


class UnreadableAnswerResponseSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=ValidationErrorEnum.choices)
    errors = _Error(many=True)
    valid = serializers.BooleanField(help_text="Always false: the answer could not be read.")


_DESCRIPTIONS = {
    409: "The attempt's or quiz's state forbids this now (finished, past its deadline, "
    "a closed part, no attempts left); `errors[0].detail` says which.",
    422: "The idempotency key was already used for a different request; the first "
    "result stands. Send a new key for a new answer.",
}
_SERIALIZERS = {409: ErrorResponse409Serializer, 422: ErrorResponse422Serializer}


def error_responses(*codes: int, **descriptions: str) -> dict[int, OpenApiResponse]:
    """extend_schema responses for the statuses this handler adds beyond the library's
    own (409, 422); `descriptions` overrides the text by "c409"/"c422"."""
    return {
        code: OpenApiResponse(
            _SERIALIZERS[code], description=descriptions.get(f"c{code}", _DESCRIPTIONS[code])
        )
        for code in codes
    }
