"""The curriculum API mounted where the project is meant to include it ("api/")."""

from django.urls import include, path

urlpatterns = [path("api/", include("curricula.urls"))]
