"""CSRF: every page route refuses a POST without the token (403, before any view runs),
and the only views exempt from Django's check are the API's (DRF checks the token itself
for session sign-ins) and the two LTI endpoints the LMS posts to cross-site (/lti/login/
and /lti/launch/: the id_token's signature, the state cookie and the one-use nonce guard
them instead, lti.views)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from rest_framework.views import APIView

from accounts.urls import urlpatterns as account_patterns
from frontend.urls import urlpatterns as frontend_patterns
from invitations.urls import urlpatterns as invitation_patterns

pytestmark = pytest.mark.django_db

LTI_EXEMPT = {"lti-login", "lti-launch"}
# Any value resolves: the check runs before the view, so nothing need exist.
SAMPLE = {
    "pk": "1",
    "qid": "1",
    "slug": "ai-infra",
    "username": "learner",
    "uidb64": "MQ",
    "token": "set-password",
    "action": "publish",
    "key": "some-key",
    "uidb36": "1",
    "provider_id": "acme",
}


def _walk(patterns, prefix=""):
    for entry in patterns:
        if isinstance(entry, URLResolver):
            yield from _walk(entry.url_patterns, prefix + str(entry.pattern))
        elif isinstance(entry, URLPattern):
            yield entry


def _named(patterns, groups=()):
    """(pattern, its URL's kwarg names, those of the includes above it too)."""
    for entry in patterns:
        if isinstance(entry, URLResolver):
            yield from _named(entry.url_patterns, (*groups, *entry.pattern.regex.groupindex))
        elif isinstance(entry, URLPattern):
            yield entry, (*groups, *entry.pattern.regex.groupindex)


def _url(pattern: URLPattern, groups) -> str:
    return reverse(pattern.name, kwargs={name: SAMPLE[name] for name in groups})


def test_every_page_route_refuses_a_post_without_the_token(learner):
    """Every page, every account page (allauth's included) and the invitations'."""
    page_patterns = [
        *_named(frontend_patterns),
        *_named(account_patterns),
        *_named(invitation_patterns),
    ]
    client = Client(enforce_csrf_checks=True)
    client.force_login(learner)
    refused = {}
    for pattern, groups in page_patterns:
        url = _url(pattern, groups)
        response = client.post(url, {"anything": "1"})
        refused[url] = response.status_code == 403 and b"CSRF verification failed" in (
            response.content
        )
    assert len(refused) == len(page_patterns) >= 75
    assert [url for url, ok in refused.items() if not ok] == []


def test_the_same_post_with_the_token_passes_the_check(learner):
    """What the walk refuses is the missing token: with it, sign-out goes through."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(learner)
    client.get("/")  # the CSRF cookie
    token = client.cookies["csrftoken"].value
    response = client.post(reverse("account_logout"), {"csrfmiddlewaretoken": token})
    assert response.status_code == 302


def test_only_the_api_and_the_lms_endpoints_are_csrf_exempt():
    exempt = set()
    for pattern in _walk(get_resolver().url_patterns):
        view = pattern.callback
        if not getattr(view, "csrf_exempt", False):
            continue
        cls = getattr(view, "cls", None)
        if cls is not None and issubclass(cls, APIView):
            continue  # DRF: SessionAuthentication enforces CSRF (next test)
        exempt.add(pattern.name)
    assert exempt == LTI_EXEMPT


def test_the_api_refuses_a_session_post_without_the_token(learner, course):
    client = Client(enforce_csrf_checks=True)
    client.force_login(learner)
    response = client.post(f"/api/courses/{course.slug}/enrol/", content_type="application/json")
    assert response.status_code == 403
    assert "CSRF" in response.json()["errors"][0]["detail"]
