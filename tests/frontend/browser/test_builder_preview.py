"""The builder's "Preview the quiz" in chromium (issue 36 item 4), at 390 and 1280 px:
the page comes back at the preview, its heading on screen (before, it came back at the
top with the preview thousands of pixels below and nothing to say so), with a way back
to the form; the page fits the screen and axe-core finds no serious or critical
violation on it."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from assess.models import Quiz
from curricula.services import curricula_load
from problems.engine import registry
from tests.factories import CourseRoleFactory
from tests.frontend.browser.test_quiz_lifecycle import COURSE, pick

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("width", [390, 1280])
def test_the_preview_opens_where_it_is(page, sign_in, shot, width):
    from curricula.models import Course

    curricula_load()
    CourseRoleFactory(user__username="teacher", course=Course.objects.get(slug=COURSE))
    page.set_viewport_size({"width": width, "height": 844})
    sign_in(page, "teacher", "/teach/quizzes/new/")
    page.get_by_label("Title").fill("Memory warm-up")
    page.get_by_label("Course").select_option(COURSE)
    weights = registry.get("weights-memory").title
    box = page.locator('input[name="slot1_templates"][value="weights-memory"]')
    page.locator("details.lesson-group", has=box).locator("summary").click()
    pick(page, weights, 1).check()

    page.get_by_role("button", name="Preview the quiz").click()
    heading = page.get_by_role("heading", name="Preview: the quiz as a learner will see it")
    heading.wait_for()
    page.wait_for_load_state("load")
    top = heading.bounding_box()["y"]  # relative to the viewport
    assert -2 <= top < 844, f"the preview's heading is {top:.0f}px from the screen's top"
    assert page.evaluate("window.scrollY") > 0
    shot(page, f"builder-preview-opened-{width}")
    assert not Quiz.objects.exists()  # a preview saves nothing
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    blocking = [
        v["id"]
        for v in Axe().run(page).response["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert blocking == []

    page.get_by_role("link", name="back to the form").click()
    expect(page.get_by_label("Title")).to_have_value("Memory warm-up")
