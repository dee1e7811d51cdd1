"""The service's URLs plus the framework's floor: a DRF view doing one INSERT, with no
authentication and with token authentication. Bench settings only."""

from django.db import connection
from django.urls import include, path
from rest_framework.authentication import TokenAuthentication
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView


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
