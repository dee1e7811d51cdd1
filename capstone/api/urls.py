"""Capstone API routes, mounted at `api/` beside assess's (the paths are unchanged since
the capstone left assess): path("api/", include("capstone.api.urls"))."""

from django.urls import path

from capstone.api import views

app_name = "capstone"

urlpatterns = [
    path("capstone/brief/", views.CapstoneBriefView.as_view(), name="brief"),
    path("memos/", views.MemoListView.as_view(), name="memo-list"),
    path("memos/<int:pk>/", views.MemoDetailView.as_view(), name="memo-detail"),
    path("memos/<int:pk>/versions/", views.MemoVersionsView.as_view(), name="memo-versions"),
    path("memos/<int:pk>/decision/", views.MemoDecisionView.as_view(), name="memo-decision"),
]
