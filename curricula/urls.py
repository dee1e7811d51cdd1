"""Curriculum API routes, meant to be included by the project at the prefix "api/"."""

from django.urls import path

from curricula import api

app_name = "curricula"

urlpatterns = [
    path("courses/", api.CourseListView.as_view(), name="course-list"),
    path("courses/<slug:slug>/", api.CourseDetailView.as_view(), name="course-detail"),
    path("lessons/<slug:slug>/", api.LessonDetailView.as_view(), name="lesson-detail"),
]
