"""A practice session in chromium, at a laptop's width (1280 px) and a phone's (390 px):
sign in (landing on the dashboard), start a session of 5 on a lesson, answer all five
(some right, one a GB/GiB slip, one plainly wrong), finish, and read the summary: right
and wrong counted, the slip named in words, each skill before and after, what next.
No page of the journey is wider than the screen, and axe-core finds no serious or
critical violation on the session's pages."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from assess.models import Attempt, MasteryEvent, Question
from curricula.models import LessonTemplate
from curricula.services import curricula_load
from problems.engine.skill_names import skill_name
from tests.factories import PASSWORD, UserFactory
from tests.frontend.helpers import gib_slip_text, right_text

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LESSON = "what-a-model-is"  # trimmed to its weights-memory link: a GB or GiB part
AXE = Axe()


def wrong_text(part: dict) -> str:
    """Readable and wrong by a factor (37) no detector names."""
    return f"{part['value'] * 37!r}"


# The last few elements reaching past the screen, named for the failure message.
WIDEST = """() => [...document.querySelectorAll('main *')]
  .filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth)
  .slice(-3)
  .map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))"""


def fits(page, width: int, where: str) -> None:
    """Nothing of the page lies beyond the screen's width."""
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width, f"{where}: {scroll} px wide at {width} px: {page.evaluate(WIDEST)}"


def no_serious_axe_violation(page, where: str) -> None:
    violations = AXE.run(page).response["violations"]
    bad = [
        (v["id"], v["impact"], [n["html"][:80] for n in v["nodes"]])
        for v in violations
        if v["impact"] in ("serious", "critical")
    ]
    assert bad == [], f"{where}: {bad}"


def latest_question(learner) -> Question:
    return Question.objects.filter(attempt__learner=learner).order_by("-id").first()


@pytest.mark.parametrize("width", [1280, 390])
def test_a_session_of_five_ends_with_a_summary_in_words(page, shot, width):
    curricula_load()
    LessonTemplate.objects.filter(lesson__slug=LESSON).exclude(
        template_slug="weights-memory"
    ).delete()
    learner = UserFactory(username="learner")
    page.set_viewport_size({"width": width, "height": 844})

    # Signing in with no page to return to lands on the dashboard.
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("learner")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/dashboard/")
    fits(page, width, "dashboard, before")

    page.goto(f"/lessons/{LESSON}/")
    page.get_by_label("Session length").select_option("5")
    fits(page, width, "lesson")
    page.get_by_role("button", name="Practice this lesson").click()

    # Right, a GB/GiB slip, right, plainly wrong, right.
    plans = ["right", "slip", "right", "wrong", "right"]
    for x, plan in enumerate(plans, start=1):
        page.wait_for_url("**/q/*/")
        assert page.locator("#session-progress").inner_text().strip() == f"Question {x} of 5"
        question = latest_question(learner)
        part = question.answers[0]
        typed = {"right": right_text, "slip": gib_slip_text, "wrong": wrong_text}[plan](part)
        page.get_by_label(f"Weights memory ({part['unit']})").fill(typed)
        page.get_by_role("button", name="Check answer").click()
        page.locator(".feedback.ok" if plan == "right" else ".feedback.bad").wait_for()
        if plan == "slip":
            shot(page, f"session-slip-{width}")
        fits(page, width, f"question {x} ({plan})")
        if x in (1, 2):  # a worked solution shown, then a named mistake
            no_serious_axe_violation(page, f"question page ({plan})")
        if x < 5:
            page.get_by_role("button", name="Next question").click()
    assert page.get_by_role("button", name="Next question").count() == 0

    # The session so far: each question right or wrong, the slip named in words.
    page.get_by_role("link", name="This session so far").click()
    page.wait_for_url("**/attempts/*/")
    overview = page.locator("ol.outcomes").inner_text()
    assert overview.count("Right first time") == 3 and overview.count("Not right") == 2
    assert "GB and GiB mixed up" in overview and "gb-vs-gib" not in overview
    fits(page, width, "session overview")

    page.get_by_role("button", name="Finish and see your summary").click()
    page.wait_for_url("**/attempts/*/")
    attempt = Attempt.objects.get(learner=learner)
    assert attempt.status == "finished" and attempt.practice_length == 5
    main = page.locator("main")
    expect(page.get_by_role("heading", name="Practice summary: What a Model Is")).to_be_visible()
    assert "3 right and 2 wrong, of 5 questions." in page.locator("#session-result").inner_text()
    slips = page.locator("ul.slips").inner_text()
    assert "GB and GiB mixed up" in slips
    assert "gb-vs-gib" not in main.inner_text()
    # Each skill before and after, as the session's own evidence moved it.
    for skill in ("weights-bytes", "units-gb-gib"):
        events = MasteryEvent.objects.filter(response__attempt=attempt, skill=skill)
        first, last = events.order_by("id").first(), events.order_by("-id").first()
        assert events.count() == 5
        row = page.locator("table.changes tr").filter(
            has=page.locator(f'th:text-is("{skill_name(skill)}")')
        )
        cells = row.locator("td")
        assert cells.nth(0).inner_text() == f"{first.p_before * 100:.0f}%"
        assert cells.nth(1).inner_text() == f"{last.p_after * 100:.0f}%"
        assert "(5 answers)" in cells.nth(2).inner_text()
    # Three right first tries master both skills of this (trimmed) lesson, so what
    # comes next is another lesson of the course, linked, with a start of its own.
    assert "its weakest skill is" in page.locator("#next-step").inner_text()
    nxt = page.locator("#next-step a")
    href, title = nxt.get_attribute("href"), nxt.inner_text()
    assert href.startswith("/lessons/") and href != f"/lessons/{LESSON}/"
    expect(page.get_by_role("button", name=f"Practice {title}")).to_be_visible()
    fits(page, width, "summary")
    no_serious_axe_violation(page, "summary")
    shot(page, f"session-summary-{width}")

    # The dashboard: the lesson under its course's heading, its skills in words.
    page.goto("/dashboard/")
    course = page.locator("section.course-progress").first
    expect(course.get_by_role("link", name="What a Model Is")).to_be_visible()
    skills = course.locator("ul.skill-bars").inner_text()
    assert "Bytes of weights" in skills and "%, mastered (5 answers)" in skills
    fits(page, width, "dashboard, after")
    no_serious_axe_violation(page, "dashboard")
    shot(page, f"session-dashboard-{width}")
