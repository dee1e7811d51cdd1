"""A newcomer's account in chromium, at a phone's width (390 px) and a laptop's (1280 px),
by keyboard: sign up from the landing page, find the exam closed until the email address
is confirmed, confirm it by the link in the outbox, practise a lesson, start the exam,
change the email address (confirmed by the link to the new one), download their data
and delete the account. Each account page fits the screen and axe-core finds no serious
or critical violation on it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.core import mail
from playwright.sync_api import expect

from assess.models import Attempt, Question, Quiz
from tests.factories import LessonFactory, QuizFactory
from tests.frontend.helpers import right_text

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "a long and fresh passphrase 71"
BLOCKING = ("serious", "critical")


def link_to(address: str) -> str:
    """The path of the last confirmation link mailed to `address` (locmem outbox: the
    live server runs in this process)."""
    sent = [m for m in mail.outbox if address in m.to]
    assert sent, f"no mail to {address}"
    return re.search(r"https?://[^/\s]+(/accounts/confirm-email/\S+/)", sent[-1].body).group(1)


class Checks:
    """What each page must pass: no sideways scrolling, no serious axe violation."""

    def __init__(self, width: int):
        self.width, self.axe, self.problems = width, Axe(), []

    def __call__(self, page, name: str) -> None:
        page.wait_for_load_state("load")
        wide = page.evaluate("document.documentElement.scrollWidth")
        if wide > self.width:
            self.problems.append(f"{name}: {wide}px wide at {self.width}px")
        for violation in self.axe.run(page).response["violations"]:
            if violation["impact"] in BLOCKING:
                self.problems.append(f"{name}: axe {violation['id']} ({violation['impact']})")


@pytest.mark.parametrize("width", [390, 1280])
def test_sign_up_confirm_practise_change_email_download_and_delete(
    browser, live_server, shot, width
):
    lesson = LessonFactory(
        slug="gpu-memory-math", title="GPU Memory Math", templates=["weights-memory"]
    )
    exam = QuizFactory(title="Sizing exam", mode=Quiz.Mode.EXAM, slots=[["weights-memory"]])
    username, email = f"newcomer{width}", f"newcomer{width}@example.com"
    context = browser.new_context(
        viewport={"width": width, "height": 844}, base_url=live_server.url
    )
    context.set_default_timeout(15_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    check = Checks(width)
    try:
        # The landing page says how to get in; sign up from it.
        page.goto("/")
        expect(page.get_by_role("heading", name="How to get in")).to_be_visible()
        expect(page.get_by_role("heading", name="Launch from your LMS")).to_be_visible()
        page.get_by_role("main").get_by_role("link", name="Sign up").click()
        page.wait_for_url("**/accounts/signup/")
        check(page, "sign up")
        shot(page, f"sign-up-{width}")
        page.get_by_label("Email").fill(email)
        page.get_by_label("Username").fill(username)
        page.get_by_label("Password", exact=True).fill(PASSWORD)
        page.get_by_label("Password (again)").fill(PASSWORD)
        page.get_by_label("Password (again)").press("Enter")  # the keyboard submits
        page.wait_for_url("**/dashboard/")
        expect(page.get_by_text(f"Confirmation email sent to {email}")).to_be_visible()

        # The exam waits for the address; the list says so, the start says why.
        page.goto("/quizzes/")
        expect(page.get_by_text("Confirm your email address to start exams")).to_be_visible()
        check(page, "quizzes (unconfirmed)")
        page.get_by_role("link", name="Details of Sizing exam").click()
        page.wait_for_url(f"**/quizzes/{exam.pk}/")
        expect(page.get_by_text("Confirm your email address before an exam")).to_be_visible()
        assert page.get_by_role("button", name="Start exam now").count() == 0
        check(page, "start page (unconfirmed)")
        assert not Attempt.objects.filter(quiz=exam).exists()

        # The link in the outbox opens a page whose button confirms.
        page.goto(link_to(email))
        check(page, "confirm email")
        shot(page, f"confirm-email-{width}")
        page.get_by_role("button", name="Confirm").click()
        page.wait_for_load_state("load")

        # Practise: a question of the lesson, answered right.
        page.goto(f"/lessons/{lesson.slug}/")
        page.get_by_role("button", name="Practice this lesson").click()
        page.wait_for_url("**/q/*/")
        question = Question.objects.filter(attempt__learner__username=username).get()
        part = question.answers[0]
        box = page.get_by_label(f"Weights memory ({part['unit']})")
        box.fill(right_text(part))
        box.press("Enter")
        page.locator(".feedback.ok").wait_for()

        # Now the exam starts.
        page.goto("/quizzes/")
        assert page.get_by_text("Confirm your email address").count() == 0
        page.get_by_role("link", name="Start Sizing exam").click()
        page.get_by_role("button", name="Start exam now").click()
        page.wait_for_url("**/attempts/*/")
        assert Attempt.objects.filter(quiz=exam, learner__username=username).exists()

        # Change the email address: it waits for the new address's link.
        new = f"renamed{width}@example.com"
        page.goto("/accounts/email/")
        check(page, "email address")
        page.get_by_label("New email address").fill(new)
        page.get_by_role("button", name="Change email").click()
        expect(page.get_by_text(f"Changing to {new}")).to_be_visible()
        check(page, "email change pending")
        shot(page, f"email-change-{width}")
        page.goto(link_to(new))
        page.get_by_role("button", name="Confirm").click()
        page.goto("/accounts/email/")
        expect(page.get_by_text(f"Your address is {new}")).to_be_visible()
        from django.contrib.auth import get_user_model

        user = get_user_model().objects.get(username=username)
        assert user.email == new

        # Download my data: the account's own page, one JSON file.
        page.get_by_role("navigation", name="Your account").get_by_role(
            "link", name="Your data"
        ).click()
        page.wait_for_url("**/accounts/data/")
        check(page, "your data")
        shot(page, f"your-data-{width}")
        with page.expect_download() as download:
            page.get_by_role("link", name="Download my data").click()
        data = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
        assert data["account"]["username"] == username and data["account"]["email"] == new
        practised = [a for a in data["attempts"] if a["mode"] == "practice"]
        assert practised[0]["questions"][0]["answers"][0]["correct"] is True

        # Delete the account: the password confirms it; the person is signed out.
        page.get_by_role("link", name="Delete my account").click()
        page.wait_for_url("**/accounts/delete/")
        check(page, "delete my account")
        shot(page, f"delete-account-{width}")
        page.get_by_label("Your password").fill(PASSWORD)
        page.get_by_role("button", name="Delete my account").click()
        page.wait_for_url(f"{live_server.url}/")
        expect(page.get_by_text("Your account is deleted.")).to_be_visible()
        check(page, "home after deleting")
        gone = get_user_model().objects.get(pk=user.pk)
        assert gone.username.startswith("deleted-") and gone.email == ""
        assert Attempt.objects.filter(learner=gone).count() == 2  # the answers stay
        expect(page.get_by_role("link", name="Sign in").first).to_be_visible()
    finally:
        context.close()
    assert errors == []
    assert check.problems == [], "\n".join(check.problems)
