"""Playwright (sync API) on Debian's chromium against pytest-django's live server.

The sync API runs an event loop in the test thread, which makes Django refuse database
calls (the flush between transactional tests) as "async unsafe". The escape hatch is
switched on only while a browser is running: left in os.environ it would leak into
subprocesses of other tests, and `manage.py check --deploy` rightly warns about it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"


ASYNC_UNSAFE = "DJANGO_ALLOW_ASYNC_UNSAFE"


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed at /usr/bin/chromium")
    from playwright.sync_api import sync_playwright

    previous = os.environ.get(ASYNC_UNSAFE)
    os.environ[ASYNC_UNSAFE] = "true"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
            yield browser
            browser.close()
    finally:
        if previous is None:
            os.environ.pop(ASYNC_UNSAFE, None)
        else:
            os.environ[ASYNC_UNSAFE] = previous


@pytest.fixture
def page(browser, live_server):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=live_server.url)
    context.set_default_timeout(15_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert errors == [], errors  # no JavaScript error on any page visited


@pytest.fixture
def shot():
    """shot(page, "name"): a full-page screenshot under tests/artifacts/screenshots/."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(page, name: str) -> None:
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)

    return take


@pytest.fixture
def sign_in():
    from tests.factories import PASSWORD

    def go(page, username: str, next_url: str = "/") -> None:
        page.goto(f"/accounts/login/?next={next_url}")
        page.get_by_label("Username").fill(username)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(f"**{next_url}")

    return go


@pytest.fixture
def start_timed_exam(sign_in):
    """start(page): the learner "learner" signs in and starts a two-question exam with a
    10-minute limit from its start page, landing on the attempt page (a callable, so a
    test can watch the page before it loads)."""
    from datetime import timedelta

    from assess.models import Quiz
    from tests.factories import QuizFactory, UserFactory

    def start(page) -> None:
        UserFactory(username="learner")
        QuizFactory(
            title="Timed sizing exam",
            mode=Quiz.Mode.EXAM,
            time_limit=timedelta(minutes=10),
            slots=[["weights-memory"], ["kv-cache-per-token"]],
        )
        sign_in(page, "learner", "/quizzes/")
        page.get_by_role("link", name="Start Timed sizing exam").click()
        page.wait_for_url("**/quizzes/*/")  # the start page: the rules, then Start
        page.get_by_role("button", name="Start exam now").click()
        page.wait_for_url("**/attempts/*/")

    return start
