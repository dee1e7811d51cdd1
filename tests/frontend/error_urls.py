"""The site's URLs plus one view that fails, to see the 500 page (tests only)."""

from django.urls import include, path


def fails(request):
    raise RuntimeError("a bug")


urlpatterns = [path("fails/", fails), path("", include("config.urls"))]
