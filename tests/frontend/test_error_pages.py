"""403, 404 and 500 pages in the site's layout (with DEBUG off, as in the tests, Django
renders them from our templates), and sign-in landing on the dashboard."""

import pytest
from django.test import Client

from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


def test_a_learner_at_the_teaching_pages_gets_the_sites_403(client, learner):
    client.force_login(learner)
    response = client.get("/teach/")
    assert response.status_code == 403
    html = response.content.decode()
    assert '<header class="site">' in html and "<h1>Not allowed</h1>" in html
    assert 'href="/dashboard/"' in html


def test_an_unknown_page_gets_the_sites_404(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    html = response.content.decode()
    assert '<header class="site">' in html and "<h1>Page not found</h1>" in html
    assert 'href="/accounts/login/' in html  # signed out: the menu offers sign-in


@pytest.mark.urls("tests.frontend.error_urls")
def test_a_server_error_gets_the_sites_500_without_details():
    response = Client(raise_request_exception=False).get("/fails/")
    assert response.status_code == 500
    html = response.content.decode()
    assert "<h1>Something went wrong</h1>" in html and "site.css" in html
    assert "a bug" not in html and "Traceback" not in html


def test_sign_in_lands_on_the_dashboard(client, learner):
    response = client.post("/accounts/login/", {"login": "learner", "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == "/dashboard/"


def test_the_site_has_a_favicon(client):
    """Browsers and bookmark tools ask for /favicon.ico whatever the page links: a 404
    there filled every log; pages link the same file."""
    response = client.get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] in ("image/x-icon", "image/vnd.microsoft.icon")
    body = b"".join(response.streaming_content)
    assert body[:4] == b"\x00\x00\x01\x00"  # an ICO header
    assert '<link rel="icon" href="/favicon.ico"' in client.get("/").content.decode()
