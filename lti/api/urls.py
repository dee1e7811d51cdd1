"""LMS grade-sync routes, mounted at `api/` before the API's catch-all 404:

path("api/", include("lti.api.urls"))
"""

from django.urls import path

from lti.api import views

app_name = "lti-api"

SCORES = "quizzes/<int:pk>/lms-scores/"

urlpatterns = [
    path(SCORES, views.ScoreSyncListView.as_view(), name="score-sync-list"),
    path(SCORES + "summary/", views.ScoreSyncSummaryView.as_view(), name="score-sync-summary"),
    path(SCORES + "resend/", views.ScoreSyncResendView.as_view(), name="score-sync-resend"),
]
