from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/hardware/", include("hardware_db.urls")),
    path("api/", include("curricula.urls")),
    path("api/", include("assess.api.urls")),
    path("", include("frontend.urls")),
]
