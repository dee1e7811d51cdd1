from django.urls import path

from lti import views

urlpatterns = [
    path("lti/jwks/", views.jwks, name="lti-jwks"),
    path("lti/login/", views.login_initiation, name="lti-login"),
    path("lti/launch/", views.launch, name="lti-launch"),
    path("lti/deep-link/<str:launch_id>/", views.deep_link, name="lti-deep-link"),
    path("lti/register/<str:token>/", views.dynamic_register, name="lti-register"),
]
