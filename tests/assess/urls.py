"""URLconf for assess API tests: mounts assess the way config/urls.py is expected to."""

from django.urls import include, path

urlpatterns = [path("api/", include("assess.api.urls"))]
