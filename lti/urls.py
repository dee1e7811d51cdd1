from django.urls import path

from lti import views

urlpatterns = [
    path("lti/jwks/", views.jwks, name="lti-jwks"),
    path("lti/login/", views.login_initiation, name="lti-login"),
    path("lti/launch/", views.launch, name="lti-launch"),
]
