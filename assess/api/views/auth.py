"""The token endpoint: rest_framework's ObtainAuthToken, throttled and documented."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from drf_standardized_errors.openapi_validation_errors import extend_validation_errors
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.parsers import FormParser, MultiPartParser

from assess.api import docs
from assess.api import serializers as s
from assess.api.schema import JsonBodySchema
from config.parsers import JSONParser as SafeJSONParser
from config.throttles import SIGN_IN_THROTTLES


@extend_schema(
    summary="Get an API token",
    description=docs.TOKEN,
    request=s.TokenRequestSerializer,
    responses={200: s.TokenSerializer},
    parameters=[docs.RETRY_AFTER],
    examples=docs.TOKEN_EXAMPLES,
)
@extend_validation_errors(["authorization"], field_name="non_field_errors", methods=["post"])
class TokenView(ObtainAuthToken):
    """Throttled per posted username and per client IP (config/throttles.py). No
    authentication classes: a stale `Authorization` header must not turn a sign-in into
    a 401. Forms are still read for older clients, but only JSON is documented."""

    serializer_class = s.TokenRequestSerializer
    authentication_classes = ()
    throttle_classes = SIGN_IN_THROTTLES
    parser_classes = (FormParser, MultiPartParser, SafeJSONParser)
    schema = JsonBodySchema()
