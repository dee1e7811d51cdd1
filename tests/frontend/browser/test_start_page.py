"""The start page and the quiz list's eligibility in chromium (issue 36 item 1), at a
phone's width and a laptop's, for a reader in Tokyo: the list says attempts used of
allowed and when the next may start in the reader's own time, never an ISO timestamp;
a timed exam starts only from its start page, which says the rules first; a track's
certification exam names the lessons still to master and offers no Start. Every page
visited fits the screen and axe-core finds no serious or critical violation on it."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.core.management import call_command
from django.utils import timezone
from playwright.sync_api import expect

from assess.models import Attempt, Quiz
from assess.services.attempts import attempt_finish, attempt_start
from certify.models import Track
from certify.selectors import track_rules
from tests.certify.conftest import FLEET
from tests.factories import PASSWORD, QuizFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d")
BLOCKING = ("serious", "critical")
TOKYO = timedelta(hours=9)  # no daylight saving time


@pytest.fixture
def world():
    call_command("load_curricula", verbosity=0)
    call_command("load_tracks", verbosity=0)
    learner = UserFactory(username="learner")
    retake = QuizFactory(
        title="Sizing exam",
        mode=Quiz.Mode.EXAM,
        feedback=Quiz.Feedback.AFTER_ATTEMPT,
        time_limit=timedelta(minutes=10),
        attempts_allowed=2,
        cooldown=timedelta(days=1),
        slots=[["weights-memory"]],
    )
    ended = timezone.now() - timedelta(hours=1)
    attempt, _ = attempt_start(quiz=retake, learner=learner, now=ended - timedelta(minutes=5))
    attempt_finish(attempt=attempt, now=ended)
    fresh = QuizFactory(
        title="KV exam",
        mode=Quiz.Mode.EXAM,
        feedback=Quiz.Feedback.AFTER_ATTEMPT,
        time_limit=timedelta(minutes=20),
        attempts_allowed=1,
        slots=[["kv-cache-per-token"]],
    )
    track = Track.objects.select_related("exam").get(slug=FLEET)
    return {"next": ended + timedelta(days=1), "fresh": fresh, "track": track}


@pytest.mark.parametrize("width", [390, 1280])
def test_start_pages_and_eligibility(browser, live_server, shot, world, width):
    context = browser.new_context(
        viewport={"width": width, "height": 844},
        base_url=live_server.url,
        timezone_id="Asia/Tokyo",
    )
    context.set_default_timeout(15_000)
    page = context.new_page()
    errors, problems, axe = [], [], Axe()
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    def check(name: str) -> str:
        page.wait_for_load_state("load")
        wide = page.evaluate("document.documentElement.scrollWidth")
        if wide > width:
            problems.append(f"{name}: {wide}px wide at {width}px")
        for violation in axe.run(page).response["violations"]:
            if violation["impact"] in BLOCKING:
                problems.append(f"{name}: axe {violation['id']} ({violation['impact']})")
        text = page.locator("main").inner_text()
        assert not ISO.search(text), (name, ISO.search(text))
        return text

    try:
        page.goto("/accounts/login/?next=/quizzes/")
        page.get_by_label("Username").fill("learner")
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url("**/quizzes/")

        # The list: attempts used of allowed, and the next start in Tokyo's time.
        text = check("quizzes")
        shot(page, f"quizzes-eligibility-{width}")
        row = page.get_by_role("row", name=re.compile("Sizing exam")).inner_text()
        assert "1 used of 2 allowed" in row, row
        local = world["next"] + TOKYO
        assert f"{local:%H:%M} GMT+9" in row and f"{local.day} {local:%b %Y}" in row, row
        assert "in 22 hours" in row.replace("\xa0", " "), row
        assert "0 used of 1 allowed" in text

        # A timed exam opens its start page; nothing starts until Start is pressed.
        page.get_by_role("link", name="Start KV exam").click()
        page.wait_for_url(f"**/quizzes/{world['fresh'].pk}/")
        text = check("start page")
        shot(page, f"start-page-{width}")
        for said in ("Time limit", "20 minutes", "0 used of 1 allowed", "Feedback", "Cooldown"):
            assert said in text, said
        assert not Attempt.objects.filter(quiz=world["fresh"]).exists()
        page.get_by_role("button", name="Start exam now").click()
        page.wait_for_url("**/attempts/*/")
        assert Attempt.objects.filter(quiz=world["fresh"]).count() == 1

        # The cooldown's start page says when, in words and the reader's time.
        page.goto("/quizzes/")
        page.get_by_role("link", name="Details of Sizing exam").click()
        text = check("start page (cooldown)")
        assert "You may start from" in text and "GMT+9" in text
        assert page.get_by_role("button", name="Start exam now").count() == 0

        # The certification exam: the lessons still to master, linked; no Start.
        track = world["track"]
        page.goto("/quizzes/")
        page.get_by_role("link", name=f"Details of {track.exam.title}").click()
        text = check("start page (certification)")
        shot(page, f"start-page-certification-{width}")
        assert "Lessons to master before the exam" in text
        lessons = page.get_by_role("list", name="Lessons to master before the exam")
        for lesson in track_rules([track])[track.pk].lessons:
            expect(lessons.get_by_role("link", name=lesson.title)).to_be_visible()
        assert page.get_by_role("button", name=re.compile("^Start")).count() == 0
    finally:
        context.close()
    assert errors == [], errors
    assert problems == [], problems
