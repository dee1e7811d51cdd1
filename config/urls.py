from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from api_common.throttles import SIGN_IN_THROTTLES, throttle_posts
from api_common.views import ApiNotFound

urlpatterns = [
    # The admin's sign-in form, throttled like the other two (the token endpoint and the
    # login page, one budget per username and per address); ahead of the admin's own
    # routes so it is the one that answers /admin/login/.
    path("admin/login/", throttle_posts(*SIGN_IN_THROTTLES)(admin.site.login)),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves the page's set-up script as a file (`?script`), so the page
    # runs under the content security policy without an inline script.
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(url_name="schema", template_name="api/swagger_ui.html"),
        name="api-docs",
    ),
    path("api/hardware/", include("hardware_db.urls")),
    # The attempts' routes first: they take almost every request of an exam, and
    # resolving walks the patterns in order (an include whose prefix matches but whose
    # routes do not costs the walk through all of them). No two includes share a route.
    path("api/", include("assess.api.urls")),
    path("api/", include("capstone.api.urls")),
    path("api/", include("curricula.urls")),
    path("api/", include("certify.api.urls")),
    path("api/", include("lti.api.urls")),
    path("api/", include("authoring.api.urls")),
    re_path(r"^api(?:/[\s\S]*)?$", ApiNotFound.as_view(), name="api-not-found"),
    path("accounts/", include("privacy.urls")),
    path("accounts/", include("accounts.urls")),
    path("", include("lti.urls")),
    path("", include("invitations.urls")),
    path("", include("frontend.urls")),
]
handler500 = "api_common.unavailable.server_error"
