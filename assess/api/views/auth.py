"""The token endpoint: rest_framework's ObtainAuthToken, throttled and documented, with
expiry (a new token once the old one has expired) and revocation (DELETE)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from drf_standardized_errors.openapi_validation_errors import extend_validation_errors
from rest_framework import exceptions, status
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from accounts.tokens import token_issue, token_revoke
from api_common.authentication import TokenAuthentication, token_expires_at
from api_common.parsers import JSONParser as SafeJSONParser
from api_common.throttles import SIGN_IN_THROTTLES
from assess.api import docs
from assess.api import serializers as s
from assess.api.schema import JsonBodySchema


@extend_schema(
    methods=["POST"],
    summary="Get an API token",
    description=docs.TOKEN,
    request=s.TokenRequestSerializer,
    responses={200: s.TokenSerializer},
    parameters=[docs.RETRY_AFTER],
    examples=docs.TOKEN_EXAMPLES,
)
@extend_schema(
    methods=["DELETE"],
    summary="Revoke this API token",
    description=docs.SIGN_OUT,
    request=None,
    responses={204: OpenApiResponse(description="Revoked: the token now answers 401.")},
)
@extend_validation_errors(["authorization"], field_name="non_field_errors", methods=["post"])
class TokenView(ObtainAuthToken):
    """POST: throttled per posted username and per client IP (api_common/throttles.py), with
    no authentication classes: a stale `Authorization` header must not turn a sign-in
    into a 401. Forms are still read for older clients, but only JSON is documented.
    DELETE: the token in the `Authorization` header revokes itself (token only: a
    session has no token to revoke)."""

    serializer_class = s.TokenRequestSerializer
    throttle_classes = SIGN_IN_THROTTLES
    parser_classes = (FormParser, MultiPartParser, SafeJSONParser)
    schema = JsonBodySchema()

    def _revoking(self) -> bool:
        request = getattr(self, "request", None)
        return request is not None and request.method == "DELETE"

    def get_authenticators(self):
        return [TokenAuthentication()] if self._revoking() else []

    def get_permissions(self):
        return [IsAuthenticated()] if self._revoking() else []

    def get_throttles(self):
        return [] if self._revoking() else super().get_throttles()

    def post(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        token = token_issue(user=serializer.validated_data["user"])
        body = {"token": token.key, "expires_at": token_expires_at(token.created)}
        return Response(s.TokenSerializer(body).data)

    def delete(self, request, *args, **kwargs):
        if request.auth is None:  # only a token revokes itself (authentication: token only)
            raise exceptions.NotAuthenticated()
        token_revoke(actor=request.user, token=request.auth)
        return Response(status=status.HTTP_204_NO_CONTENT)
