"""Invitation routes, mounted at the site root: the inviters' pages beside the pages
they belong to (a team's, an organisation's, a course's teaching pages), and the link."""

from django.urls import path

from invitations import views

urlpatterns = [
    path(
        "organisations/<slug:slug>/invitations/",
        views.organization_invitations,
        name="invitations-organization",
    ),
    path("teams/<int:pk>/invitations/", views.team_invitations, name="invitations-team"),
    path(
        "teach/courses/<slug:slug>/invitations/",
        views.course_invitations,
        name="invitations-course",
    ),
    path("invitations/<int:pk>/resend/", views.invitation_resend, name="invitation-resend"),
    path("invitations/<int:pk>/revoke/", views.invitation_revoke, name="invitation-revoke"),
    path("invitations/accept/<str:token>/", views.invitation_accept, name="invitation-accept"),
    path(
        "invitations/accept/<str:token>/sign-up/",
        views.invitation_sign_up,
        name="invitation-sign-up",
    ),
]
