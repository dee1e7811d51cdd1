"""Certification API routes, mounted at `api/` before the API's catch-all 404:

path("api/", include("certify.api.urls"))
"""

from django.urls import path, re_path

from certify.api import views

app_name = "certify"

CERTIFICATE = r"^certificates/(?P<pk>[A-Za-z0-9_-]{1,32})"

urlpatterns = [
    path("tracks/", views.TrackListView.as_view(), name="track-list"),
    path("tracks/<slug:slug>/progress/", views.TrackProgressView.as_view(), name="track-progress"),
    path(
        "tracks/<slug:slug>/psychometrics/",
        views.TrackPsychometricsView.as_view(),
        name="track-psychometrics",
    ),
    path("certificates/", views.CertificateListView.as_view(), name="certificate-list"),
    re_path(
        CERTIFICATE + r"/verify/$",
        views.CertificateVerifyView.as_view(),
        name="certificate-verify",
    ),
    re_path(
        CERTIFICATE + r"/revoke/$",
        views.CertificateRevokeView.as_view(),
        name="certificate-revoke",
    ),
    path("teams/", views.TeamListView.as_view(), name="team-list"),
    path("teams/<int:pk>/readiness/", views.TeamReadinessView.as_view(), name="team-readiness"),
    path(
        "certifications/check/",
        views.CertificationCheckView.as_view(),
        name="certification-check",
    ),
]
