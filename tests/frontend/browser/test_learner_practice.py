"""A learner practises a lesson in the browser: a GB/GiB slip is told its mistake but not
the answer; the right answer then shows the worked solution; a later question answered
right at once raises the skill estimates; "Show the answer" closes a part in place; and
the course page, lesson page and dashboard read back the honest evidence."""

import pytest
from playwright.sync_api import expect

from assess.models import Enrolment, Question
from curricula.models import LessonTemplate
from curricula.services import curricula_load
from tests.factories import UserFactory
from tests.frontend.helpers import gib_slip_text, right_text

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LESSON = "what-a-model-is"  # the walk keeps only its weights-memory link: a GB or GiB part
COURSE = "ai-infrastructure-llm-d-vllm-and-gpus"


def skill_cells(page, skill: str) -> tuple[float, int]:
    """(estimate, answers) of one skill in the lesson page's table (printed "42%")."""
    row = page.locator("table.skills tr").filter(has=page.locator(f'th:text-is("{skill}")'))
    cells = row.locator("td")
    estimate = cells.nth(0).inner_text()
    assert estimate.endswith("%"), estimate
    return float(estimate[:-1]) / 100, int(cells.nth(1).inner_text())


def latest_question(learner) -> Question:
    return Question.objects.filter(attempt__learner=learner).order_by("-id").first()


def test_learner_practises_slips_on_gib_then_gets_it_right(page, shot, sign_in):
    curricula_load()
    # Every packaged lesson has two templates or more; this walk answers weights questions
    # only, so the lesson keeps just its weights-memory link here.
    LessonTemplate.objects.filter(lesson__slug=LESSON).exclude(
        template_slug="weights-memory"
    ).delete()
    learner = UserFactory(username="learner")

    page.goto("/")
    shot(page, "home")
    sign_in(page, "learner", f"/lessons/{LESSON}/")
    expect(page.get_by_role("heading", name="What a Model Is")).to_be_visible()
    expect(page.get_by_text("Not started: you have not practised this lesson yet.")).to_be_visible()

    page.get_by_role("button", name="Practice this lesson").click()
    page.wait_for_url("**/q/*/")
    assert Enrolment.objects.get(user=learner).course.slug == COURSE  # enrolled on first use
    question = Question.objects.get(attempt__learner=learner)
    assert question.template_slug == "weights-memory"
    part = question.answers[0]
    box = page.get_by_label(f"Weights memory ({part['unit']})")

    # The slip: the right bytes in the other unit. Typed key by key: the draft is kept in
    # the browser as it goes (drafts.js).
    box.press_sequentially(gib_slip_text(part), delay=20)
    page.get_by_text("Draft kept in this browser at").wait_for()
    page.get_by_role("button", name="Check answer").click()
    feedback = page.locator(".feedback.bad")
    feedback.wait_for()
    other = "GiB" if part["unit"] == "GB" else "GB"
    assert f"That is the size in {other}." in feedback.inner_text()
    # The verdict reaches the page's polite live region (the block was swapped whole).
    said = page.locator("#announcer").inner_text()
    assert ": Not correct: GB and GiB mixed up. That is the size in" in said  # the mistake
    # A wrong try: the mistake is named, the answer and the solution wait.
    assert page.get_by_text("Worked solution").count() == 0
    assert page.locator("span.answer").count() == 0
    expect(page.get_by_role("button", name="Show the answer")).to_be_visible()
    shot(page, "question-feedback")

    page.reload()  # the box keeps the last answer
    box = page.get_by_label(f"Weights memory ({part['unit']})")
    assert box.input_value() == gib_slip_text(part)
    box.fill(right_text(part))
    box.press("Enter")  # keyboard submit
    page.locator(".feedback.ok").wait_for()
    assert "Correct" in page.locator(".feedback.ok").inner_text()
    assert page.locator("#announcer").inner_text().endswith(": Correct.")
    expect(page.get_by_text("Worked solution")).to_be_visible()
    assert page.locator(".solution math").count() > 0  # MathML rendered on the server
    expect(page.get_by_text("This part was answered correctly already")).to_be_visible()
    assert page.locator(f"#a{question.pk}-weights").count() == 0  # the box is gone
    shot(page, "question-solved")

    # Only the first try is evidence: one answer behind each skill, from the slip.
    page.goto(f"/lessons/{LESSON}/")
    after_slip, answers = skill_cells(page, "Bytes of weights")
    assert answers == 1
    expect(page.get_by_role("cell", name="correct", exact=True)).to_be_visible()

    # The next question, right at the first try: the estimate rises, two answers behind.
    page.get_by_role("button", name="Start a new session").click()
    page.wait_for_url("**/q/*/")
    second = latest_question(learner)
    box = page.get_by_label(f"Weights memory ({second.answers[0]['unit']})")
    box.fill(right_text(second.answers[0]))
    page.get_by_role("button", name="Check answer").click()
    page.locator(".feedback.ok").wait_for()
    page.goto(f"/lessons/{LESSON}/")
    after_right, answers = skill_cells(page, "Bytes of weights")
    assert answers == 2 and after_right > after_slip
    assert "of 2 skills mastered" in page.locator("#lesson-mastery").inner_text()
    shot(page, "lesson")

    # A third question: "Show the answer" closes the part in place (htmx), no try spent.
    page.get_by_role("button", name="Start a new session").click()
    page.wait_for_url("**/q/*/")
    third = latest_question(learner)
    page.get_by_role("button", name="Show the answer").click()
    page.locator("span.answer").wait_for()
    expect(page.get_by_text("You asked for this part's answer")).to_be_visible()
    expect(page.get_by_text("Worked solution")).to_be_visible()
    assert page.locator(f"#a{third.pk}-weights").count() == 0
    assert not third.responses.exists()
    shot(page, "question-revealed")

    page.goto(f"/courses/{COURSE}/")
    expect(page.get_by_text("You are enrolled in this course")).to_be_visible()
    mastery = page.locator(f'.mastery[data-lesson="{LESSON}"]')
    assert "of 2 skills mastered" in mastery.inner_text()
    assert page.locator("svg.mastery rect.bar").count() >= 1
    shot(page, "course")

    page.goto("/dashboard/")
    # One line per skill of weights-memory, one point per evidence answer (2 each).
    assert page.locator("svg.history polyline.series").count() == 2
    assert page.locator("svg.history circle").count() == 4
    assert "Bytes of weights" in page.locator("svg.history").inner_html()
    expect(page.get_by_role("link", name="What a Model Is").first).to_be_visible()
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
