"""One error format for the whole API (drf-standardized-errors), and the mapping of the
services' own exceptions onto it.

Every error body is `{"type": "validation_error" | "client_error" | "server_error",
"errors": [{"code", "detail", "attr"}]}`; `attr` names the field (nested fields joined
by "."), or is null. Services raise plain Python exceptions (api_common.service_errors, Django's
ObjectDoesNotExist and ValidationError) so that pages, commands and tasks can call them
too; this handler is the one place that turns them into statuses:

    ObjectDoesNotExist -> 404     NotPermitted -> 403      Conflict -> 409
    TooSoon -> 429 `throttled` with Retry-After
    InvalidInput, Django ValidationError -> 400 (validation_error)
    TooManyFieldsSent, TooManyFilesSent (a form or query past Django's field limits)
        -> 400 `parse_error`
    IdempotencyMismatch -> 422    UnreadableAnswer -> 400 with "valid": false
    OperationalError, InterfaceError (the database unreachable) -> 503
        `service_unavailable` with Retry-After (api_common/unavailable.py; nothing was saved)

drf-standardized-errors documents 400/401/403/404/405/406/415/429/500 on every operation
by itself where the view can raise them, and 413 (a body over the size limit, refused by
api_common/request_size.py before any view) on every operation; 409, 422 and a service's 429
(and 403 on views that any signed-in user may call, where only the service knows the
rule) are declared per operation with `error_responses()`, and an operation that may
refuse an unreadable answer uses `UnreadableAnswerSchema` so its 400 documents `valid`.
"""

from __future__ import annotations

import re

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist, TooManyFieldsSent, TooManyFilesSent
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import models
from drf_spectacular.utils import OpenApiResponse, PolymorphicProxySerializer
from drf_standardized_errors.formatter import ExceptionFormatter
from drf_standardized_errors.handler import ExceptionHandler
from drf_standardized_errors.openapi import AutoSchema as StandardizedAutoSchema
from drf_standardized_errors.openapi_serializers import (
    ClientErrorEnum,
    ErrorResponse403Serializer,
    ErrorResponse429Serializer,
    ValidationErrorEnum,
)
from drf_standardized_errors.openapi_utils import InputDataField
from drf_standardized_errors.settings import package_settings
from inflection import camelize
from rest_framework import exceptions, serializers, status
from rest_framework.fields import empty
from rest_framework.settings import api_settings

from api_common.authentication import TokenExpired
from api_common.pagination import Pagination
from api_common.request_size import CODE as REQUEST_TOO_LARGE
from api_common.service_errors import (
    Conflict,
    IdempotencyMismatch,
    InvalidInput,
    MasteryRequired,
    NotPermitted,
    TooSoon,
)
from api_common.service_errors import UnreadableAnswer as UnreadableAnswerError
from api_common.unavailable import CODE as UNAVAILABLE_CODE
from api_common.unavailable import DETAIL as UNAVAILABLE_DETAIL
from api_common.unavailable import RETRY_AFTER, database_unavailable

_INDEX = package_settings.LIST_INDEX_IN_API_SCHEMA


class ConflictError(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_detail = "The attempt or quiz does not allow this now."
    default_code = "conflict"


class LessonMasteryRequired(ConflictError):
    """A certification exam started before the track's lessons are mastered (issue 36):
    a 409 of its own code, so a client can send the learner to practise rather than
    retry. `detail` names the lessons still below the threshold."""

    default_detail = "Master the track's lessons before its certification exam."
    default_code = MasteryRequired.code


class IdempotencyKeyReused(exceptions.APIException):
    status_code = status.HTTP_422_UNPROCESSABLE_ENTITY
    default_detail = "This idempotency key was used for a different request."
    default_code = "idempotency_key_reused"


class UnreadableAnswer(exceptions.ValidationError):
    """A 400 validation error on `answer`, whose body also says `"valid": false`."""

    default_code = "unreadable_answer"

    def __init__(self, detail: str):
        super().__init__({"answer": [detail]}, code=self.default_code)


class TooSoonError(exceptions.APIException):
    """A service's rate rule (service_errors.TooSoon): allowed again in `wait` seconds."""

    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    default_code = "throttled"  # the library's one 429 code, as its throttles send

    def __init__(self, detail: str, wait: int):
        super().__init__(detail)
        self.wait = wait  # the library's handler sends `wait` as Retry-After


class DatabaseUnavailable(exceptions.APIException):
    """The database could not be reached; the request's transaction rolled back."""

    status_code = status.HTTP_503_SERVICE_UNAVAILABLE
    default_detail = UNAVAILABLE_DETAIL
    default_code = UNAVAILABLE_CODE
    wait = RETRY_AFTER  # the library's handler sends `wait` as Retry-After


def _django_validation(exc: DjangoValidationError) -> exceptions.ValidationError:
    if hasattr(exc, "error_dict"):
        return exceptions.ValidationError(exc.message_dict)
    return exceptions.ValidationError(exc.messages)


class ApiExceptionHandler(ExceptionHandler):
    def convert_known_exceptions(self, exc: Exception) -> Exception:
        if database_unavailable(exc):
            return DatabaseUnavailable()
        if isinstance(exc, ObjectDoesNotExist):
            return exceptions.NotFound()
        if isinstance(exc, TooManyFieldsSent | TooManyFilesSent):
            return exceptions.ParseError(
                f"The form or query has more than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS} "
                "fields, the most this service reads."
            )
        if isinstance(exc, MasteryRequired):
            return LessonMasteryRequired(str(exc))
        if isinstance(exc, Conflict):
            return ConflictError(str(exc))
        if isinstance(exc, IdempotencyMismatch):
            return IdempotencyKeyReused(str(exc))
        if isinstance(exc, TooSoon):
            return TooSoonError(str(exc), exc.retry_after)
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


class ErrorCode401(models.TextChoices):
    """drf-standardized-errors' 401 codes, and ours for a token past its TTL."""

    AUTHENTICATION_FAILED = "authentication_failed"
    NOT_AUTHENTICATED = "not_authenticated"
    TOKEN_EXPIRED = TokenExpired.default_code


class Error401Serializer(serializers.Serializer):
    code = serializers.ChoiceField(
        choices=ErrorCode401.choices,
        help_text="`not_authenticated`: no credentials; `authentication_failed`: an "
        "unknown or revoked token; `token_expired`: the token is past its expiry (sign in "
        "again for a new one).",
    )
    detail = serializers.CharField()
    attr = serializers.CharField(allow_null=True)


class ErrorResponse401Serializer(serializers.Serializer):
    """The 401 body of every operation (DRF_STANDARDIZED_ERRORS' ERROR_SCHEMAS)."""

    type = serializers.ChoiceField(choices=ClientErrorEnum.choices)
    errors = Error401Serializer(many=True)


class Error413Serializer(serializers.Serializer):
    code = serializers.ChoiceField(choices=[(REQUEST_TOO_LARGE,) * 2])
    detail = serializers.CharField(help_text="The limit, in words and bytes.")
    attr = serializers.CharField(allow_null=True)


# The 413 of every operation (DRF_STANDARDIZED_ERRORS' ERROR_SCHEMAS): a body over
# DATA_UPLOAD_MAX_MEMORY_SIZE, refused unparsed by api_common/request_size.py.
class ErrorResponse413Serializer(serializers.Serializer):
    """A request body larger than the service takes (2.5 MB), refused before any of it
    was used: nothing was saved. Send less."""

    type = serializers.ChoiceField(choices=ClientErrorEnum.choices)
    errors = Error413Serializer(many=True)


class Error409Serializer(serializers.Serializer):
    code = serializers.ChoiceField(choices=[(ConflictError.default_code,) * 2])
    detail = serializers.CharField(help_text="Which state forbids it, in words.")
    attr = serializers.CharField(allow_null=True)


class ErrorResponse409Serializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=ClientErrorEnum.choices)
    errors = Error409Serializer(many=True)


class Error409StartSerializer(serializers.Serializer):
    code = serializers.ChoiceField(
        choices=[(c, c) for c in (ConflictError.default_code, LessonMasteryRequired.default_code)],
        help_text="`conflict`: the quiz's state or the learner's attempts forbid a start "
        "now; `lesson_mastery_required`: a certification exam whose track's lessons the "
        "learner has not mastered yet (`detail` names them; practise them first).",
    )
    detail = serializers.CharField(help_text="Which state forbids it, in words.")
    attr = serializers.CharField(allow_null=True)


class ErrorResponse409StartSerializer(serializers.Serializer):
    """The 409 of starting an attempt: the common `conflict`, or the certification
    exam's `lesson_mastery_required` (added within version 1, announced in the README)."""

    type = serializers.ChoiceField(choices=ClientErrorEnum.choices)
    errors = Error409StartSerializer(many=True)


class Error422Serializer(serializers.Serializer):
    code = serializers.ChoiceField(choices=[(IdempotencyKeyReused.default_code,) * 2])
    detail = serializers.CharField()
    attr = serializers.CharField(allow_null=True)


class ErrorResponse422Serializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=ClientErrorEnum.choices)
    errors = Error422Serializer(many=True)


_DESCRIPTIONS = {
    403: "Signed in, but your role does not allow this; `errors[0].detail` says why.",
    409: "The attempt's or quiz's state forbids this now (finished, past its deadline, "
    "a closed part, no attempts left); `errors[0].detail` says which.",
    422: "The idempotency key was already used for a different request; the first "
    "result stands. Send a new key for a new answer.",
    429: "Too soon: nothing was stored. Send it again after the `Retry-After` header's seconds.",
}
_SERIALIZERS = {
    403: ErrorResponse403Serializer,
    409: ErrorResponse409Serializer,
    422: ErrorResponse422Serializer,
    429: ErrorResponse429Serializer,
}


def error_responses(*codes: int, **descriptions: str) -> dict[int, OpenApiResponse]:
    """extend_schema responses for the statuses the library cannot infer from the view:
    403 on views any signed-in user may call (it documents 401 only there), 409 and 422;
    `descriptions` overrides the text by "c403"/"c409"/"c422"."""
    return {
        code: OpenApiResponse(
            _SERIALIZERS[code], description=descriptions.get(f"c{code}", _DESCRIPTIONS[code])
        )
        for code in codes
    }


# ------------------------------------------------------------ validation error schemas


class FlatErrorsListSerializer(serializers.ListSerializer):
    """A nested list whose own errors (empty, too long, not a list) name the list's
    path, `slots`, as its null and required errors already do, rather than
    `slots.non_field_errors`. Set it as a child serializer's `list_serializer_class`."""

    def run_validation(self, data=empty):
        try:
            return super().run_validation(data)
        except exceptions.ValidationError as exc:
            detail = exc.detail
            if isinstance(detail, dict) and set(detail) == {api_settings.NON_FIELD_ERRORS_KEY}:
                raise exceptions.ValidationError(
                    detail[api_settings.NON_FIELD_ERRORS_KEY]
                ) from None
            raise


def _attr_field(attr: str) -> serializers.Field:
    """The documented `attr` of one error: the path itself, or for a path through a list
    (the library writes its index as INDEX) a pattern the real paths match, `slots.0.points`
    as much as `slots.99.points`."""
    if _INDEX not in attr.split(package_settings.NESTED_FIELD_SEPARATOR):
        return serializers.ChoiceField(choices=[(attr, attr)])
    pattern = re.escape(attr).replace(_INDEX, "[0-9]+")
    return serializers.RegexField(f"^{pattern}$", help_text=f"{attr}, INDEX a list position")


class AutoSchema(StandardizedAutoSchema):
    """drf-standardized-errors' schema, with validation errors as the handler sends them.

    The library documents a nested field's `attr` as a literal such as
    `slots.INDEX.points`, which no response carries (they say `slots.0.points`), and
    discriminates on it; here such an attr is a pattern, and an operation that has one
    lists its error shapes as a plain oneOf (they stay mutually exclusive). The errors of
    a FlatErrorsListSerializer itself are documented on the list's own path, with the
    length codes its bounds can raise, and a null item of a nested list on the item's
    path (`slots.0`, code `null`), which the library leaves out.
    """

    def _paged(self) -> bool:
        """A list operation served in pages: its `page_size` may be refused (400)."""
        return self.method == "GET" and isinstance(self._get_paginator(), Pagination)

    def _should_add_validation_error_response(self) -> bool:
        return super()._should_add_validation_error_response() or self._paged()

    def _get_extra_validation_errors(self):
        extra = super()._get_extra_validation_errors()
        if self._paged():
            extra.setdefault(Pagination.page_size_query_param, set()).add("invalid")
        return extra

    def _determine_fields_with_error_codes(self):
        fields = super()._determine_fields_with_error_codes()
        sep = package_settings.NESTED_FIELD_SEPARATOR
        suffix = sep + api_settings.NON_FIELD_ERRORS_KEY
        items = []
        for data_field in fields:
            field = data_field.field
            if not (
                isinstance(field, serializers.ListSerializer) and data_field.name.endswith(suffix)
            ):
                continue
            path = data_field.name.removesuffix(suffix)
            if not getattr(field.child, "allow_null", False):  # `slots: [null]`
                items.append(InputDataField(f"{path}{sep}{_INDEX}", field.child, {"null"}))
            if isinstance(field, FlatErrorsListSerializer):
                data_field.name = path
                data_field.error_codes |= {"null", "required", "empty", "not_a_list"}
                if field.min_length is not None:
                    data_field.error_codes.add("min_length")
                if field.max_length is not None:
                    data_field.error_codes.add("max_length")
        return fields + items

    def _get_serializer_for_validation_error_response(self):
        codes_by_field = self._get_validation_error_codes_by_field(
            self._determine_fields_with_error_codes()
        )
        operation = camelize(self.get_operation_id())
        shapes = {
            attr: _error_serializer(operation, attr, codes)
            for attr, codes in codes_by_field.items()
        }
        listed = any(_INDEX in attr for attr in shapes)

        class ValidationErrorSerializer(serializers.Serializer):
            type = serializers.ChoiceField(choices=ValidationErrorEnum.choices)
            errors = PolymorphicProxySerializer(
                component_name=f"{operation}Error",
                serializers=list(shapes.values()) if listed else shapes,
                resource_type_field_name=None if listed else "attr",
                many=True,
            )

            class Meta:
                ref_name = f"{operation}ValidationError"

        return ValidationErrorSerializer


def _error_serializer(operation: str, path: str, codes: set[str]) -> type:
    name = camelize(path.replace(package_settings.NESTED_FIELD_SEPARATOR, "_"))

    class ErrorSerializer(serializers.Serializer):
        attr = _attr_field(path)
        code = serializers.ChoiceField(choices=sorted(zip(codes, codes, strict=True)))
        detail = serializers.CharField()

        class Meta:
            ref_name = f"{operation}{name}{package_settings.ERROR_COMPONENT_NAME_SUFFIX}"

    return ErrorSerializer


class UnreadableAnswerSchema(AutoSchema):
    """The schema of an operation that may refuse an unreadable answer: its documented
    400 validation error is the library's (every field with its codes, plus those added
    by extend_validation_errors) with the `valid` key the handler adds for that case, so
    the documented body is the one a client receives."""

    def _get_serializer_for_validation_error_response(self):
        base = super()._get_serializer_for_validation_error_response()

        class WithValid(base):
            valid = serializers.BooleanField(
                required=False,
                help_text="Present, and false, when the answer could not be read (code "
                "`unreadable_answer` on `answer`, whose detail says what the reader "
                "expected); absent for other validation errors.",
            )

            class Meta(base.Meta):
                pass

        return WithValid
