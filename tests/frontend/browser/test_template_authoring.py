"""An instructor writes a problem template in the browser (issue 42), at 1280 and 390
px: a mistake is named by its field while they type, the fixed text previews three seeds
with answers, it saves as a draft and publishes, and the quiz builder offers it, marked
as written for the course, for a quiz that saves with it. No page is wider than the
screen, and axe-core finds no serious or critical violation on the editor."""

from __future__ import annotations

from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from assess.models import Quiz
from authoring.models import AuthoredTemplate
from curricula.models import Course
from curricula.services import curricula_load
from tests.factories import CourseRoleFactory
from tests.frontend.browser.test_quiz_lifecycle import COURSE, pick

EXAMPLE = Path(__file__).parents[2] / "problems" / "authored" / "data" / "team-kv-budget.yaml"
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _fits(page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("width", [1280, 390])
def test_write_check_preview_publish_and_use_a_template(page, sign_in, shot, width):
    curricula_load()
    CourseRoleFactory(user__username="teacher", course=Course.objects.get(slug=COURSE))
    page.set_viewport_size({"width": width, "height": 900})
    sign_in(page, "teacher", f"/teach/courses/{COURSE}/templates/new/")

    editor = page.get_by_label("Template (YAML)")
    assert "slug:" in editor.input_value()  # the starter text
    text = EXAMPLE.read_text()
    editor.fill(text.replace("unit: byte", "unit: parsecs"))
    problems = page.locator("#problems")
    problems.get_by_text("parts[0].unit").wait_for()
    shot(page, f"authoring-problem-{width}")
    _fits(page, width)

    editor.fill(text)
    problems.get_by_text("No problems").wait_for()
    page.get_by_role("button", name="Preview three seeds").click()
    page.get_by_role("heading", name="Seed 2").wait_for()
    expect(page.get_by_role("heading", name="Misconception check over 50 variants")).to_be_visible()
    blocking = [
        v["id"]
        for v in Axe().run(page).response["violations"]
        if v["impact"] in ("serious", "critical")
    ]
    assert blocking == []
    _fits(page, width)

    page.get_by_role("button", name="Save as a draft").click()
    page.wait_for_url("**/teach/templates/team-kv-budget/")
    page.get_by_role("button", name="Publish version 1").click()
    page.get_by_text("is published").wait_for()
    assert AuthoredTemplate.objects.get().status == "published"
    shot(page, f"authoring-published-{width}")
    _fits(page, width)

    page.goto("/teach/quizzes/new/")
    page.get_by_label("Title").fill("Our fleet's KV cache")
    page.get_by_label("Course").select_option(COURSE)
    group = page.locator("details.lesson-group", has_text="Written for this course")
    group.locator("summary").click()
    expect(group.get_by_text("written for this course").first).to_be_visible()
    pick(page, "KV cache for one sequence on our serving nodes", 1).check()
    page.get_by_role("button", name="Save").first.click()
    page.wait_for_url("**/teach/quizzes/*/")
    quiz = Quiz.objects.get()
    assert [s.templates for s in quiz.slots.all()] == [["team-kv-budget"]]
    _fits(page, width)
