"""Authoring API routes, mounted at `api/` before the API's catch-all 404."""

from django.urls import path

from authoring.api import views

app_name = "authoring"

urlpatterns = [
    path(
        "courses/<slug:slug>/authored-templates/",
        views.CourseTemplatesView.as_view(),
        name="course-templates",
    ),
    path(
        "courses/<slug:slug>/authored-templates/check/",
        views.DocumentCheckView.as_view(),
        name="document-check",
    ),
    path(
        "courses/<slug:slug>/authored-templates/preview/",
        views.DocumentPreviewView.as_view(),
        name="document-preview",
    ),
    path(
        "authored-templates/<slug:slug>/",
        views.TemplateDetailView.as_view(),
        name="template-detail",
    ),
    path(
        "authored-templates/<slug:slug>/publish/",
        views.TemplatePublishView.as_view(),
        name="template-publish",
    ),
    path(
        "authored-templates/<slug:slug>/archive/",
        views.TemplateArchiveView.as_view(),
        name="template-archive",
    ),
    path(
        "authored-templates/<slug:slug>/regrade/",
        views.TemplateRegradeView.as_view(),
        name="template-regrade",
    ),
    path(
        "authored-templates/<slug:slug>/versions/<int:number>/",
        views.TemplateVersionView.as_view(),
        name="template-version",
    ),
]
