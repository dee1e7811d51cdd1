"""A session started by a launch lives in the LMS's iframe (lti.middleware): its landing
pages are frameable by the launching platform's origin only, and its session and CSRF
cookies are sent cross-site (`SameSite=None; Secure; Partitioned`); an ordinary sign-in
keeps X-Frame-Options: DENY and Lax cookies; an inactive registration's origin is never
named in frame-ancestors."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from lti_tool.models import LtiRegistration

from assess.services.attempts import attempt_start
from lti.framing import FRAME_ORIGINS
from tests.factories import PASSWORD, UserFactory
from tests.lti.conftest import INSTRUCTOR, ISS
from tests.policy import csp_directives, frame_ancestors

OTHER = "https://other-lms.example.org"


def _registration(issuer: str, *, active: bool = True) -> LtiRegistration:
    return LtiRegistration.objects.create(
        name=issuer,
        issuer=issuer,
        client_id="other-client",
        auth_url=issuer + "/auth",
        token_url=issuer + "/token",
        keyset_url=issuer + "/jwks",
        is_active=active,
    )


def _launched(platform, **claims):
    """A launch's landing page (the 303 followed) and the launch response itself."""
    launch = platform.launch(**claims)
    assert launch.status_code == 303, launch.content
    return platform.client.get(launch["Location"], secure=True), launch


def _set_cookie_lines(response, name: str) -> str:
    return response.cookies[name].output(header="")


def _assert_cross_site(response, name: str) -> None:
    morsel = response.cookies[name]
    assert morsel["samesite"] == "None"
    assert morsel["secure"] is True
    assert morsel["partitioned"] is True
    line = _set_cookie_lines(response, name)
    assert "SameSite=None" in line and "Secure" in line and "Partitioned" in line


def test_launched_learners_attempt_page_is_frameable_by_the_platform_only(platform):
    _registration(OTHER)  # another active LMS: allowed to frame LTI endpoints, not this
    page, _ = _launched(platform)
    assert page.status_code == 200
    assert page.resolver_match.url_name == "attempt-detail"
    assert "X-Frame-Options" not in page
    assert frame_ancestors(page) == ISS
    # only frame-ancestors changes: the rest of the site's policy stays
    policy = csp_directives(page)
    assert policy["script-src"] == "'self'" and policy["default-src"] == "'self'"
    assert "Cookie" in page["Vary"]


def test_launched_session_keeps_other_pages_unframed(platform):
    _launched(platform)
    for url in ("/", "/quizzes/", "/dashboard/"):
        response = platform.client.get(url, secure=True)
        assert response["X-Frame-Options"] == "DENY", url
        assert frame_ancestors(response) == "'none'", url


def test_launched_instructor_lands_on_a_frameable_quiz_items_page(platform):
    page, _ = _launched(platform, roles=[INSTRUCTOR], sub="teacher-sub")
    assert page.resolver_match.url_name == "quiz-items"
    assert "X-Frame-Options" not in page
    assert frame_ancestors(page) == ISS


def test_ordinary_sign_in_is_unchanged(platform, quiz):
    user = UserFactory(username="ordinary")
    attempt, _ = attempt_start(quiz=quiz, learner=user)
    client = Client(enforce_csrf_checks=False)
    signed_in = client.post(
        "/accounts/login/", {"login": "ordinary", "password": PASSWORD}, secure=True
    )
    assert signed_in.status_code == 302
    session_cookie = signed_in.cookies[settings.SESSION_COOKIE_NAME]
    assert session_cookie["samesite"] == "Lax"
    assert "Partitioned" not in _set_cookie_lines(signed_in, settings.SESSION_COOKIE_NAME)
    page = client.get(reverse("attempt-detail", args=[attempt.pk]), secure=True)
    assert page.status_code == 200
    assert page["X-Frame-Options"] == "DENY"
    assert frame_ancestors(page) == "'none'"
    assert page.cookies[settings.CSRF_COOKIE_NAME]["samesite"] == "Lax"
    assert "Partitioned" not in _set_cookie_lines(page, settings.CSRF_COOKIE_NAME)


def test_launch_cookies_are_samesite_none_secure_partitioned(platform):
    page, launch = _launched(platform)
    _assert_cross_site(launch, settings.SESSION_COOKIE_NAME)
    _assert_cross_site(launch, settings.CSRF_COOKIE_NAME)
    _assert_cross_site(page, settings.CSRF_COOKIE_NAME)  # renewed by the page's forms
    assert launch.cookies[settings.SESSION_COOKIE_NAME]["httponly"] is True


def test_oidc_state_cookie_is_samesite_none_secure_partitioned(platform):
    response = platform.client.get(
        "/lti/login/",
        {"iss": ISS, "login_hint": "x", "target_link_uri": "https://testserver/lti/launch/"},
        secure=True,
    )
    assert response.status_code == 302
    states = [name for name in response.cookies if name.startswith("lti1p3-state")]
    assert states
    for name in states:
        _assert_cross_site(response, name)
        assert response.cookies[name]["httponly"] is True


def test_signing_out_deletes_the_partitioned_session_cookie(platform):
    _launched(platform)
    client = platform.client
    token = client.cookies[settings.CSRF_COOKIE_NAME].value
    response = client.post(
        "/accounts/logout/",
        secure=True,
        HTTP_X_CSRFTOKEN=token,
        HTTP_REFERER="https://testserver/",
    )
    assert response.status_code == 302
    deleted = response.cookies[settings.SESSION_COOKIE_NAME]
    assert deleted.value == "" and deleted["max-age"] == 0
    _assert_cross_site(response, settings.SESSION_COOKIE_NAME)


def test_frame_ancestors_never_names_an_inactive_registration(platform):
    _registration(OTHER, active=False)
    page, _ = _launched(platform)
    assert OTHER not in frame_ancestors(page)

    # a session marked with both origins: only the active one is named
    session = platform.client.session
    session[FRAME_ORIGINS] = [ISS, OTHER]
    session.save()
    attempt_url = page.request["PATH_INFO"]
    again = platform.client.get(attempt_url, secure=True)
    assert frame_ancestors(again) == ISS

    # the launching registration deactivated: the page is not frameable any more
    LtiRegistration.objects.filter(issuer=ISS).update(is_active=False)
    after = platform.client.get(attempt_url, secure=True)
    assert after.status_code == 200
    assert after["X-Frame-Options"] == "DENY"
    assert frame_ancestors(after) == "'none'"


def test_an_existing_csp_keeps_its_other_directives(rf):
    from lti.framing import with_frame_ancestors

    merged = with_frame_ancestors("default-src 'self'; frame-ancestors 'none'; img-src *", [ISS])
    assert merged == f"default-src 'self'; img-src *; frame-ancestors {ISS}"
    assert with_frame_ancestors("", [ISS, OTHER]) == f"frame-ancestors {ISS} {OTHER}"


@pytest.mark.parametrize("setting", ["SESSION_COOKIE_SAMESITE", "CSRF_COOKIE_SAMESITE"])
def test_the_defaults_stay_lax(setting):
    assert getattr(settings, setting) == "Lax"
