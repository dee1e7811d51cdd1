"""Page routes, mounted at the site root. Names are plain (no namespace) because the
settings refer to "home" and "dashboard". The account pages are accounts/urls.py's."""

from django.urls import path, re_path

from frontend.views import (
    authoring,
    capstone,
    certify,
    dashboard,
    drills,
    gradebook,
    hardware,
    learn,
    metrics,
    organizations,
    pages,
    people,
    psychometrics,
    take,
    teach,
    template_authoring,
)
from frontend.views.lms_grades import quiz_lms_grades

urlpatterns = [
    path("", pages.home, name="home"),
    path("healthz", pages.healthz, name="healthz"),
    path("readyz", pages.readyz, name="readyz"),
    path("metrics", metrics.metrics, name="metrics"),
    # learning
    path("courses/", learn.course_list, name="course-list"),
    path("courses/<slug:slug>/", learn.course_detail, name="course-detail"),
    path("courses/<slug:slug>/enrol/", learn.course_enrol, name="course-enrol"),
    path("lessons/<slug:slug>/", learn.lesson_detail, name="lesson-detail"),
    path("lessons/<slug:slug>/practice/", learn.lesson_practice, name="lesson-practice"),
    path("dashboard/", dashboard.dashboard, name="dashboard"),
    # quizzes and attempts
    path("quizzes/", take.quiz_list, name="quiz-list"),
    path("quizzes/<int:pk>/", take.quiz_detail, name="quiz-detail"),
    path("quizzes/<int:pk>/start/", take.quiz_start, name="quiz-start"),
    path("attempts/<int:pk>/", take.attempt_detail, name="attempt-detail"),
    path("attempts/<int:pk>/finish/", take.attempt_finish_view, name="attempt-finish"),
    path("attempts/<int:pk>/q/<int:qid>/", take.question_detail, name="question-detail"),
    path("attempts/<int:pk>/q/<int:qid>/answer/", take.question_answer, name="question-answer"),
    path("attempts/<int:pk>/q/<int:qid>/vary/", take.question_vary, name="question-vary"),
    path("attempts/<int:pk>/q/<int:qid>/reveal/", take.question_reveal, name="question-reveal"),
    path("attempts/<int:pk>/q/<int:qid>/hint/", take.question_hint, name="question-hint"),
    path(
        "attempts/<int:pk>/q/<int:qid>/drill/act/",
        drills.drill_act_view,
        name="question-drill-act",
    ),
    path(
        "attempts/<int:pk>/q/<int:qid>/drill/submit/",
        drills.drill_submit_view,
        name="question-drill-submit",
    ),
    # instructors
    path("teach/", teach.teach_index, name="teach"),
    path("teach/quizzes/new/", authoring.quiz_builder, name="quiz-builder"),
    path("teach/quizzes/<int:pk>/", authoring.quiz_manage, name="quiz-manage"),
    path("teach/quizzes/<int:pk>/edit/", authoring.quiz_edit, name="quiz-edit"),
    path("teach/quizzes/<int:pk>/preview/", authoring.quiz_preview, name="quiz-preview"),
    path("teach/quizzes/<int:pk>/duplicate/", authoring.quiz_duplicate, name="quiz-duplicate"),
    re_path(
        r"^teach/quizzes/(?P<pk>[0-9]+)/(?P<action>publish|unpublish|close)/$",
        authoring.quiz_action,
        name="quiz-action",
    ),
    path("teach/preview/", teach.template_preview, name="template-preview"),
    path(
        "teach/courses/<slug:slug>/templates/",
        template_authoring.authored_list,
        name="authored-list",
    ),
    path(
        "teach/courses/<slug:slug>/templates/new/",
        template_authoring.authored_new,
        name="authored-new",
    ),
    path(
        "teach/courses/<slug:slug>/templates/check/",
        template_authoring.authored_check,
        name="authored-check",
    ),
    path(
        "teach/courses/<slug:slug>/templates/preview/",
        template_authoring.authored_preview,
        name="authored-preview",
    ),
    path("teach/templates/<slug:slug>/", template_authoring.authored_edit, name="authored-edit"),
    re_path(
        r"^teach/templates/(?P<slug>[-a-zA-Z0-9_]+)/(?P<action>publish|archive)/$",
        template_authoring.authored_action,
        name="authored-action",
    ),
    path("teach/quizzes/<int:pk>/items/", teach.quiz_items, name="quiz-items"),
    path("teach/quizzes/<int:pk>/lms-grades/", quiz_lms_grades, name="quiz-lms-grades"),
    path("teach/quizzes/<int:pk>/gradebook/", gradebook.quiz_gradebook, name="quiz-gradebook"),
    path(
        "teach/quizzes/<int:pk>/extensions/",
        gradebook.quiz_extension,
        name="quiz-extension",
    ),
    path(
        "teach/quizzes/<int:pk>/gradebook.csv",
        gradebook.quiz_gradebook_csv,
        name="quiz-gradebook-csv",
    ),
    path(
        "teach/courses/<slug:slug>/gradebook/",
        gradebook.course_gradebook,
        name="course-gradebook",
    ),
    path(
        "teach/courses/<slug:slug>/gradebook.csv",
        gradebook.course_gradebook_csv,
        name="course-gradebook-csv",
    ),
    path("teach/courses/<slug:slug>/progress/", teach.course_progress, name="course-progress"),
    path("teach/courses/<slug:slug>/learners/", teach.course_learners, name="course-learners"),
    path(
        "teach/courses/<slug:slug>/learners/remove/",
        teach.course_learner_remove,
        name="course-learner-remove",
    ),
    path(
        "teach/courses/<slug:slug>/progress.csv",
        teach.course_progress_csv,
        name="course-progress-csv",
    ),
    # capstone memos
    path("capstone/", capstone.capstone_home, name="capstone"),
    path("capstone/start/", capstone.capstone_start, name="capstone-start"),
    path("capstone/write/", capstone.capstone_write, name="capstone-write"),
    path("capstone/preview/", capstone.capstone_preview, name="capstone-preview"),
    path("capstone/memos/<int:pk>/", capstone.capstone_memo, name="capstone-memo"),
    path(
        "capstone/memos/<int:pk>/status/",
        capstone.capstone_memo_status,
        name="capstone-memo-status",
    ),
    path("teach/memos/", capstone.teach_memos, name="teach-memos"),
    path("teach/memos/<int:pk>/", capstone.teach_memo, name="teach-memo"),
    # certification
    path("certify/", certify.certify_home, name="certify"),
    path("certify/<slug:slug>/", certify.certify_track, name="certify-track"),
    path(
        "certify/<slug:slug>/psychometrics/",
        psychometrics.track_psychometrics,
        name="certify-track-psychometrics",
    ),
    path("certificates/<str:pk>/", certify.certificate_verify, name="certificate-verify-page"),
    path(
        "certificates/<str:pk>/revoke/",
        certify.certificate_revoke_view,
        name="certificate-revoke-page",
    ),
    path("teams/", certify.team_list, name="teams"),
    path(
        "organisations/<slug:slug>/sign-in/",
        organizations.organization_sso,
        name="organization-sso",
    ),
    path(
        "organisations/<slug:slug>/members/",
        organizations.organization_members,
        name="organization-members",
    ),
    path(
        "organisations/<slug:slug>/members/<int:user_id>/remove/",
        organizations.organization_member_remove,
        name="organization-member-remove",
    ),
    path("teams/<int:pk>/", certify.team_detail, name="team-detail"),
    path("people/<str:username>/", people.person_detail, name="person-detail"),
    path("teams/<int:pk>/readiness.csv", certify.team_readiness_csv, name="team-readiness-csv"),
    # hardware
    path("hardware/", hardware.hardware_index, name="hardware"),
    path("hardware/compare/", hardware.hardware_compare, name="hardware-compare"),
    path("hardware/roofline/", hardware.hardware_roofline, name="hardware-roofline"),
]
