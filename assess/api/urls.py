"""Assess API routes, meant to be mounted at `api/`:

path("api/", include("assess.api.urls"))
"""

from django.urls import path

from assess.api import views

app_name = "assess"

urlpatterns = [
    # An exam's requests first, answers foremost (9 of an exam's 12 requests): URLs
    # resolve by walking the patterns in order, and none of these shares a route.
    path(
        "attempts/<int:pk>/responses/",
        views.AttemptResponsesView.as_view(),
        name="attempt-responses",
    ),
    path("attempts/<int:pk>/", views.AttemptDetailView.as_view(), name="attempt-detail"),
    path("attempts/<int:pk>/finish/", views.AttemptFinishView.as_view(), name="attempt-finish"),
    path(
        "attempts/<int:pk>/questions/<int:qid>/new-variant/",
        views.NewVariantView.as_view(),
        name="question-new-variant",
    ),
    path(
        "attempts/<int:pk>/questions/<int:qid>/reveal/",
        views.RevealView.as_view(),
        name="question-reveal",
    ),
    path(
        "attempts/<int:pk>/questions/<int:qid>/hints/",
        views.HintView.as_view(),
        name="question-hints",
    ),
    path(
        "attempts/<int:pk>/questions/<int:qid>/drill/actions/",
        views.DrillActionView.as_view(),
        name="drill-actions",
    ),
    path(
        "attempts/<int:pk>/questions/<int:qid>/drill/submit/",
        views.DrillSubmitView.as_view(),
        name="drill-submit",
    ),
    path("auth/token/", views.TokenView.as_view(), name="token"),
    path("quizzes/", views.QuizListView.as_view(), name="quiz-list"),
    path("quizzes/<int:pk>/", views.QuizDetailView.as_view(), name="quiz-detail"),
    path("quizzes/<int:pk>/attempts/", views.QuizAttemptsView.as_view(), name="quiz-attempts"),
    path("quizzes/<int:pk>/items/", views.QuizItemsView.as_view(), name="quiz-items"),
    path("quizzes/<int:pk>/publish/", views.QuizPublishView.as_view(), name="quiz-publish"),
    path("quizzes/<int:pk>/unpublish/", views.QuizUnpublishView.as_view(), name="quiz-unpublish"),
    path("quizzes/<int:pk>/close/", views.QuizCloseView.as_view(), name="quiz-close"),
    path(
        "quizzes/<int:pk>/extensions/",
        views.QuizExtensionsView.as_view(),
        name="quiz-extensions",
    ),
    path(
        "quizzes/<int:pk>/extensions/<int:learner_id>/",
        views.QuizExtensionDetailView.as_view(),
        name="quiz-extension-detail",
    ),
    path("me/mastery/", views.MyMasteryView.as_view(), name="my-mastery"),
    path("courses/<slug:slug>/enrol/", views.CourseEnrolView.as_view(), name="course-enrol"),
    path(
        "courses/<slug:slug>/enrolments/",
        views.CourseEnrolmentsView.as_view(),
        name="course-enrolments",
    ),
    path(
        "courses/<slug:slug>/enrolments/<str:username>/",
        views.CourseEnrolmentDetailView.as_view(),
        name="course-enrolment-detail",
    ),
    path(
        "lessons/<slug:slug>/practice/", views.LessonPracticeView.as_view(), name="lesson-practice"
    ),
]
