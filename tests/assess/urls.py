"""URLconf for assess and capstone API tests: mounts both the way config/urls.py does."""

from django.urls import include, path

urlpatterns = [
    path("api/", include("assess.api.urls")),
    path("api/", include("capstone.api.urls")),
]
