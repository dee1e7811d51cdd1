"""Sign in, sign out and password reset through Django's auth views and our templates."""

import re

import pytest
from django.core import mail

from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


def test_login_page_labels_its_fields_and_links_the_reset(client):
    html = client.get("/accounts/login/").content.decode()
    assert '<label for="id_username">' in html and '<label for="id_password">' in html
    assert 'href="/accounts/password-reset/"' in html


def test_sign_in_redirects_to_next_and_sign_out_is_a_post(client, learner):
    response = client.post(
        "/accounts/login/",
        {"username": "learner", "password": PASSWORD, "next": "/dashboard/"},
    )
    assert response.status_code == 302 and response["Location"] == "/dashboard/"
    page = client.get("/dashboard/").content.decode()
    assert 'action="/accounts/logout/"' in page and "learner" in page
    assert client.post("/accounts/logout/").status_code == 302
    assert client.get("/dashboard/")["Location"].startswith("/accounts/login/")


def test_wrong_password_shows_an_error(client, learner):
    response = client.post("/accounts/login/", {"username": "learner", "password": "nope"})
    assert response.status_code == 200
    assert "correct username and password" in response.content.decode()


def test_password_reset_sends_a_link_that_sets_a_new_password(client, learner):
    response = client.post("/accounts/password-reset/", {"email": learner.email})
    assert response["Location"] == "/accounts/password-reset/sent/"
    assert client.get(response["Location"]).status_code == 200
    assert len(mail.outbox) == 1 and "Burn-in" in mail.outbox[0].subject
    link = re.search(r"http://testserver(/accounts/reset/\S+/)", mail.outbox[0].body).group(1)
    form = client.get(link, follow=True)  # Django swaps the token for a session marker
    assert form.status_code == 200 and "new_password1" in form.content.decode()
    done = client.post(
        form.redirect_chain[-1][0],
        {"new_password1": "a fresh long passphrase", "new_password2": "a fresh long passphrase"},
    )
    assert done["Location"] == "/accounts/reset/done/"
    assert client.login(username="learner", password="a fresh long passphrase")


def test_a_used_or_forged_reset_link_says_so(client):
    html = client.get("/accounts/reset/MQ/bad-token/").content.decode()
    assert "invalid" in html
