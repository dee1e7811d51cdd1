"""URLconf for API tests: mounts hardware_db the way config/urls.py is expected to."""

from django.urls import include, path

urlpatterns = [path("api/hardware/", include("hardware_db.urls"))]
