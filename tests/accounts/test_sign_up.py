"""Sign-up, email confirmation and the exam gate: an account made by sign-up signs in and
practises at once, and starts an exam or a certification only once it has confirmed its
address by the mailed link (a 403 before, on the page and in the API); accounts made any
other way count as confirmed. Sign-up can be closed (SIGNUP_OPEN)."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import SignUp
from accounts.selectors import email_confirmed
from assess.models import Attempt
from tests.accounts.conftest import SIGN_UP_PASSWORD, last_link_to
from tests.factories import PASSWORD, UserFactory
from tests.openapi import assert_documented

pytestmark = pytest.mark.django_db
User = get_user_model()


def test_sign_up_signs_in_and_mails_a_confirmation_link(client, sign_up):
    response = sign_up()
    assert response.status_code == 302 and response["Location"] == "/dashboard/"
    user = User.objects.get(username="newcomer")
    assert client.session["_auth_user_id"] == str(user.pk)
    assert user.email == "newcomer@example.com" and user.check_password(SIGN_UP_PASSWORD)
    assert SignUp.objects.get(user=user).confirmed_at is None
    assert not email_confirmed(user=user)
    (message,) = mail.outbox
    assert message.to == ["newcomer@example.com"] and message.subject.startswith("Burn-in: ")
    assert last_link_to("newcomer@example.com").startswith("/accounts/confirm-email/")


def test_an_unconfirmed_account_practises_but_starts_no_exam_until_it_confirms(
    client, sign_up, lesson, exam, certification
):
    sign_up()
    user = User.objects.get(username="newcomer")
    # Practice is open: lesson practice starts.
    assert client.post(f"/lessons/{lesson.slug}/practice/").status_code == 302
    assert Attempt.objects.filter(learner=user, quiz__adaptive=True).count() == 1
    # An exam and a certification are refused, with a page that says what to do.
    for quiz in (exam, certification):
        refused = client.post(f"/quizzes/{quiz.pk}/start/")
        assert refused.status_code == 403
        page = refused.content.decode()
        assert "Confirm your email address" in page and 'href="/accounts/email/"' in page
    assert not Attempt.objects.filter(learner=user, quiz__in=[exam, certification]).exists()
    # The API says the same, as its schema documents.
    api = APIClient()
    api.force_authenticate(user)
    url = f"/api/quizzes/{exam.pk}/attempts/"
    r = api.post(url)
    assert r.status_code == 403 and r.json()["errors"][0]["code"] == "permission_denied"
    assert "Confirm your email address" in r.json()["errors"][0]["detail"]
    assert_documented(r, "post", url)

    # The link opens a page that confirms on a POST (a mail scanner's GET does nothing).
    link = last_link_to("newcomer@example.com")
    assert client.get(link).status_code == 200
    assert not email_confirmed(user=user)
    assert client.post(link).status_code == 302
    assert email_confirmed(user=user)
    assert EmailAddress.objects.get(user=user).verified

    started = client.post(f"/quizzes/{exam.pk}/start/")
    assert started.status_code == 302 and started["Location"].startswith("/attempts/")
    assert api.post(f"/api/quizzes/{certification.pk}/attempts/").status_code == 201


def test_the_quiz_list_tells_an_unconfirmed_account_what_to_do(client, sign_up):
    sign_up()
    page = client.get("/quizzes/").content.decode()
    assert "Confirm your email address to start exams" in page
    client.post(last_link_to("newcomer@example.com"))
    assert "Confirm your email address" not in client.get("/quizzes/").content.decode()


def test_accounts_made_any_other_way_count_as_confirmed(exam):
    """Staff (the admin, a command such as load_demo), an LMS launch with or without an
    address, single sign-on: none is a sign-up, so none waits for a link."""
    staff_made = UserFactory(username="made-by-staff")
    launched = User(username="lti-0123", email="lms-learner@example.com")
    launched.set_unusable_password()
    launched.save()
    launched_without_email = User.objects.create(username="lti-4567")
    for user in (staff_made, launched, launched_without_email):
        assert email_confirmed(user=user), user
        api = APIClient()
        api.force_authenticate(user)
        assert api.post(f"/api/quizzes/{exam.pk}/attempts/").status_code == 201
    # The address staff typed is allauth's, verified: the account signs in by it.
    assert EmailAddress.objects.get(user=staff_made, primary=True).verified
    client = Client()
    signed_in = client.post(
        "/accounts/login/", {"login": "made-by-staff@example.com", "password": PASSWORD}
    )
    assert signed_in.status_code == 302
    # An LMS's address is its claim: kept, unverified; no row without one.
    assert not EmailAddress.objects.get(user=launched).verified
    assert not EmailAddress.objects.filter(user=launched_without_email).exists()


def test_load_demo_accounts_are_confirmed_and_sign_in(django_capture_on_commit_callbacks):
    from django.core.management import call_command

    from certify.services.tracks import tracks_load
    from curricula.services import curricula_load

    curricula_load()
    tracks_load()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_demo", verbosity=0)
    for username in ("learner", "instructor", "manager", "oncall"):
        user = User.objects.get(username=username)
        assert email_confirmed(user=user)
        password = f"{username}-demo-pass"
        response = Client().post("/accounts/login/", {"login": username, "password": password})
        assert response.status_code == 302, username


def test_a_second_sign_up_with_a_taken_address_makes_no_account(client, sign_up):
    """The address is compared ignoring case. The form says it is taken: with sign-in
    before confirmation, allauth cannot pretend otherwise (its enumeration guard needs
    confirmation before sign-in); the password reset form says nothing of the kind."""
    UserFactory(username="owner", email="taken@example.com")
    response = sign_up(username="squatter", email="TAKEN@example.com")
    assert response.status_code == 200
    assert "already registered with this email" in response.content.decode()
    assert not User.objects.filter(username="squatter").exists() and mail.outbox == []


@pytest.mark.parametrize("open_", [False])
def test_sign_up_can_be_closed(settings, client, sign_up, open_):
    settings.SIGNUP_OPEN = open_
    page = client.get("/accounts/signup/")
    assert page.status_code == 200 and "Sign-up is closed" in page.content.decode()
    sign_up()
    assert not User.objects.filter(username="newcomer").exists() and mail.outbox == []
    # The front doors stop offering it.
    for url in ("/", "/accounts/login/", "/quizzes/"):
        html = client.get(url).content.decode()
        assert 'href="/accounts/signup/"' not in html, url
        assert 'href="/accounts/sso/"' in html, url
