"""Answers for /api/ paths that no route matches: the API's JSON 404, never Django's
HTML page (a non-integer id such as /api/attempts/abc/ lands here too)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import exceptions
from rest_framework.permissions import AllowAny
from rest_framework.views import APIView


@extend_schema(exclude=True)
class ApiNotFound(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list = []

    def http_method_not_allowed(self, request, *args, **kwargs):
        raise exceptions.NotFound()

    def get(self, request, *args, **kwargs):
        raise exceptions.NotFound()

    post = put = patch = delete = head = options = get
