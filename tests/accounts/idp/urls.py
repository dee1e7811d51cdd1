"""The provider's routes: django-oauth-toolkit's (discovery, JWKS, authorize, token,
userinfo) at /o/, the same again at /impostor/ (whose discovery document names /o/ as
its issuer: a provider registered at the wrong address), and the employees' sign-in."""

from django.contrib.auth import authenticate, login
from django.http import HttpResponse, HttpResponseRedirect
from django.urls import include, path
from django.utils.http import url_has_allowed_host_and_scheme


def sign_in(request):
    """The company's own sign-in page: POST username and password."""
    if request.method == "POST":
        user = authenticate(
            request,
            username=request.POST.get("username"),
            password=request.POST.get("password"),
        )
        if user is None:
            return HttpResponse("wrong", status=401, content_type="text/plain")
        login(request, user)
        wanted = request.POST.get("next") or request.GET.get("next") or "/"
        if not url_has_allowed_host_and_scheme(wanted, {request.get_host()}):
            wanted = "/"
        return HttpResponseRedirect(wanted)
    return HttpResponse("Sign in to Acme", content_type="text/plain")


urlpatterns = [
    path("login/", sign_in),
    path("o/", include("oauth2_provider.urls")),
    path("impostor/", include("oauth2_provider.urls", namespace="impostor")),
]
