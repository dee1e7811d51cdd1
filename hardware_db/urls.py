"""Hardware API routes, meant to be mounted at `api/hardware/`:

path("api/hardware/", include("hardware_db.urls"))
"""

from rest_framework.routers import DefaultRouter

from hardware_db import views

app_name = "hardware_db"

router = DefaultRouter()
router.register("accelerators", views.AcceleratorViewSet, basename="accelerator")
router.register("links", views.LinkViewSet, basename="link")
router.register("servers", views.ServerViewSet, basename="server")
router.register("models", views.ModelArchitectureViewSet, basename="model")

urlpatterns = router.urls
