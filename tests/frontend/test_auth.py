"""Sign in (by username or email), sign out and password reset through allauth's views and
our templates, and the addresses the pages had before allauth."""

import re

import pytest
from django.core import mail

from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


def test_login_page_labels_its_fields_and_links_the_reset_sign_up_and_company(client):
    html = client.get("/accounts/login/").content.decode()
    assert '<label for="id_login">Username or email</label>' in html
    assert '<label for="id_password">' in html
    assert 'href="/accounts/password/reset/"' in html
    assert 'href="/accounts/signup/"' in html and 'href="/accounts/sso/"' in html
    assert "Launch from your LMS" in html


@pytest.mark.parametrize("typed", ["learner", "LEARNER", "learner@example.com"])
def test_sign_in_by_username_or_email_redirects_to_next(client, learner, typed):
    learner.email = "learner@example.com"
    learner.save()
    response = client.post(
        "/accounts/login/", {"login": typed, "password": PASSWORD, "next": "/dashboard/"}
    )
    assert response.status_code == 302 and response["Location"] == "/dashboard/"
    assert client.session["_auth_user_id"] == str(learner.pk)


def test_sign_out_is_a_post(client, learner):
    client.post("/accounts/login/", {"login": "learner", "password": PASSWORD})
    page = client.get("/dashboard/").content.decode()
    assert 'action="/accounts/logout/"' in page and "learner" in page
    asked = client.get("/accounts/logout/")
    assert asked.status_code == 200  # a page that asks, and clears nothing yet
    assert "Clear-Site-Data" not in asked
    assert client.session.get("_auth_user_id") == str(learner.pk)
    done = client.post("/accounts/logout/")
    assert done.status_code == 302
    # The browser forgets what the site kept in it: answers typed but not saved (drafts.js).
    assert done["Clear-Site-Data"] == '"storage"'
    assert client.get("/dashboard/")["Location"].startswith("/accounts/login/")


def test_wrong_password_shows_an_error(client, learner):
    response = client.post("/accounts/login/", {"login": "learner", "password": "nope"})
    assert response.status_code == 200
    assert "username and/or password you specified are not correct" in response.content.decode()


def test_password_reset_sends_a_link_that_sets_a_new_password(client, learner):
    response = client.post("/accounts/password/reset/", {"email": learner.email})
    assert response["Location"] == "/accounts/password/reset/done/"
    assert client.get(response["Location"]).status_code == 200
    assert len(mail.outbox) == 1 and mail.outbox[0].subject.startswith("Burn-in: ")
    link = re.search(r"http://testserver(/accounts/password/reset/key/\S+/)", mail.outbox[0].body)
    form = client.get(link.group(1), follow=True)  # allauth swaps the key for a session marker
    assert form.status_code == 200 and "password1" in form.content.decode()
    done = client.post(
        form.redirect_chain[-1][0],
        {"password1": "a fresh long passphrase", "password2": "a fresh long passphrase"},
    )
    assert done["Location"] == "/accounts/password/reset/key/done/"
    assert client.login(username="learner", password="a fresh long passphrase")


def test_a_used_or_forged_reset_link_says_so(client):
    html = client.get("/accounts/password/reset/key/1-bad-token/").content.decode()
    assert "invalid or was used already" in html


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("/accounts/password-reset/", "/accounts/password/reset/"),
        ("/accounts/password-reset/sent/", "/accounts/password/reset/done/"),
        ("/accounts/reset/done/", "/accounts/login/"),
    ],
)
def test_the_old_addresses_redirect_to_the_new_pages(client, old, new):
    response = client.get(old)
    assert response.status_code == 301 and response["Location"] == new


def test_an_old_reset_link_asks_for_a_new_one(client):
    response = client.get("/accounts/reset/MQ/set-password/", follow=True)
    assert response.redirect_chain[-1][0] == "/accounts/password/reset/"
    assert "no longer valid" in response.content.decode()
