"""Invitation routes, mounted at the site root: the inviters' pages beside the pages
they belong to (a team's, an organisation's, a course's teaching pages), and the link."""

from django.urls import path

from api_common.throttles import InvitationSendThrottle, throttle_posts
from invitations import views

# Every POST that mails someone is counted per user (THROTTLE_INVITATION_SEND).
mails = throttle_posts(InvitationSendThrottle)

urlpatterns = [
    path(
        "organisations/<slug:slug>/invitations/",
        mails(views.organization_invitations),
        name="invitations-organization",
    ),
    path("teams/<int:pk>/invitations/", mails(views.team_invitations), name="invitations-team"),
    path(
        "teach/courses/<slug:slug>/invitations/",
        mails(views.course_invitations),
        name="invitations-course",
    ),
    path("invitations/<int:pk>/resend/", mails(views.invitation_resend), name="invitation-resend"),
    path("invitations/<int:pk>/revoke/", views.invitation_revoke, name="invitation-revoke"),
    path("invitations/accept/<str:token>/", views.invitation_accept, name="invitation-accept"),
    path(
        "invitations/accept/<str:token>/sign-up/",
        views.invitation_sign_up,
        name="invitation-sign-up",
    ),
]
