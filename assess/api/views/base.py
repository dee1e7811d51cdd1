"""What every assess endpoint shares."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse
from drf_standardized_errors.openapi_validation_errors import extend_validation_errors
from rest_framework.permissions import IsAuthenticated
from rest_framework.views import APIView

import assess.api.schema  # noqa: F401  (registers the ListSerializer schema extension)
from api_common.errors import AutoSchema, error_responses


class AssessAPIView(APIView):
    """Signed-in users only: without credentials a 401 with WWW-Authenticate (token
    authentication comes first). Objects the user may not see are 404 (the selectors
    raise DoesNotExist), never 403, so their existence stays private; errors, the
    services' exceptions included, are mapped and formatted by api_common.errors, whose
    AutoSchema documents them as sent."""

    permission_classes = [IsAuthenticated]
    schema = AutoSchema()


def service_validation(*fields: str):
    """Document code `invalid` on the request fields a service checks itself (its
    ValidationError or InvalidInput names the field, with DRF's default code), for
    the views' POST: the library knows only the serializer fields' own codes."""

    def decorate(view):
        for field in fields:
            view = extend_validation_errors(["invalid"], field_name=field, methods=["post"])(view)
        return view

    return decorate


def created_or_existing(serializer, *, existing: str) -> dict[int, object]:
    """201 for a new object, 200 (described) when the call found it already there."""
    return {201: serializer, 200: OpenApiResponse(serializer, description=existing)}


E403, E409, E422 = (error_responses(code)[code] for code in (403, 409, 422))
