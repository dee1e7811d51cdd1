"""The service's URLs plus the framework's floor: a DRF view doing one INSERT, with no
authentication and with token authentication. Bench settings only.

The error handlers are the service's own: Django takes them from the root URLconf, so
without them a bench would answer a database outage in middleware with Django's 500
where the service answers 503 (the chaos run in CI caught one)."""

from django.db import connection
from django.urls import include, path
from rest_framework.authentication import TokenAuthentication
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from config.urls import handler500  # noqa: F401 (read by Django from this module)


class FloorInsert(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]

    def post(self, request):
        with connection.cursor() as cursor:
            cursor.execute("INSERT INTO bench_floor (note) VALUES (%s)", ["floor"])
        return Response({"ok": True}, status=201)


class FloorInsertToken(FloorInsert):
    authentication_classes = [TokenAuthentication]
    permission_classes = [IsAuthenticated]


urlpatterns = [
    path("bench/floor/", FloorInsert.as_view()),
    path("bench/floor-token/", FloorInsertToken.as_view()),
    path("", include("config.urls")),
]
