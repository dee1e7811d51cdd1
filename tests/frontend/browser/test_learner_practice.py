"""A learner practises a lesson in the browser: a GB/GiB slip, its message and worked
solution, then the right answer, and mastery rising on the course page."""

import pytest

from assess.models import Question
from curricula.services import curricula_load
from tests.factories import UserFactory
from tests.frontend.helpers import gib_slip_text, right_text

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LESSON = "what-a-model-is"  # its only template is weights-memory: a GB or GiB part
COURSE = "ai-infrastructure-llm-d-vllm-and-gpus"


def mastery_on_course_page(page) -> float:
    page.goto(f"/courses/{COURSE}/")
    return float(page.locator(f'.mastery[data-lesson="{LESSON}"]').inner_text())


def test_learner_practises_slips_on_gib_then_gets_it_right(page, shot, sign_in):
    curricula_load()
    learner = UserFactory(username="learner")

    page.goto("/")
    shot(page, "home")
    sign_in(page, "learner", f"/lessons/{LESSON}/")
    assert page.get_by_role("heading", name="What a Model Is").is_visible()

    page.get_by_role("button", name="Practice this lesson").click()
    page.wait_for_url("**/q/*/")
    question = Question.objects.get(attempt__learner=learner)
    assert question.template_slug == "weights-memory"
    part = question.answers[0]
    box = page.get_by_label(f"Weights memory ({part['unit']})")

    # The slip: the right bytes in the other unit. Typed key by key, so autosave runs.
    box.press_sequentially(gib_slip_text(part), delay=20)
    page.get_by_text("Draft kept at").wait_for()
    page.get_by_role("button", name="Check answer").click()
    feedback = page.locator(".feedback.bad")
    feedback.wait_for()
    other = "GiB" if part["unit"] == "GB" else "GB"
    assert f"That is the size in {other}." in feedback.inner_text()
    assert page.get_by_text("Worked solution").is_visible()
    assert page.locator(".solution math").count() > 0  # MathML rendered on the server
    shot(page, "question-feedback")

    after_slip = mastery_on_course_page(page)
    page.go_back()
    page.reload()  # the box keeps the last answer
    box = page.get_by_label(f"Weights memory ({part['unit']})")
    assert box.input_value() == gib_slip_text(part)
    box.fill(right_text(part))
    box.press("Enter")  # keyboard submit
    page.locator(".feedback.ok").wait_for()
    assert "Correct" in page.locator(".feedback.ok").inner_text()

    after_right = mastery_on_course_page(page)
    assert after_right > after_slip
    assert page.locator("svg.mastery rect.bar").count() >= 1
    shot(page, "course")

    page.goto(f"/lessons/{LESSON}/")
    assert page.get_by_role("cell", name="correct", exact=True).is_visible()
    shot(page, "lesson")

    page.goto("/dashboard/")
    # Every lesson that uses weights-memory moved twice: two points per line.
    assert page.locator("svg.history circle").count() % 2 == 0
    assert "What a Model Is" in page.locator("svg.history").inner_html()
    shot(page, "dashboard")


def test_keyboard_reaches_content_and_focus_is_visible(page, sign_in):
    page.goto("/courses/")
    page.keyboard.press("Tab")
    skip = page.locator("a.skip")
    assert skip.evaluate("el => el === document.activeElement")
    outline = skip.evaluate("el => getComputedStyle(el).outlineStyle")
    assert outline == "solid"
    page.keyboard.press("Enter")
    assert page.evaluate("location.hash") == "#main"
