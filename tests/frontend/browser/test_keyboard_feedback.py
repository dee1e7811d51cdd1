"""Issue 36, item 7, in chromium at 1280 and 390 px: after "Check answer", by the button
or by Enter, focus lands on the feedback (it fell to the body, and the next Tab skipped
the feedback, the hint and "Show the answer"); the next Tabs reach the hint and then the
reveal; the live region reads the named mistake, not a bare "Not correct."."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from assess.models import Question
from curricula.models import LessonTemplate
from curricula.services import curricula_load
from tests.factories import UserFactory
from tests.frontend.browser.pagechecks import checked
from tests.frontend.helpers import gib_slip_text

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LESSON = "what-a-model-is"  # trimmed to weights-memory: a GB or GiB part

FOCUSED = """() => {
  const el = document.activeElement;
  return [el.tagName, el.id || "", el.className || "", (el.innerText || "").trim().slice(0, 40)];
}"""


def focused(page):
    return page.evaluate(FOCUSED)


@pytest.mark.parametrize("width", [1280, 390])
def test_focus_moves_to_the_feedback_then_hint_then_reveal(page, sign_in, width):
    curricula_load()
    LessonTemplate.objects.filter(lesson__slug=LESSON).exclude(
        template_slug="weights-memory"
    ).delete()
    learner = UserFactory(username="learner")
    refused: list[str] = []  # the content security policy's complaints, if any
    page.on(
        "console",
        lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None,
    )
    page.set_viewport_size({"width": width, "height": 844})
    sign_in(page, "learner", f"/lessons/{LESSON}/")
    page.get_by_role("button", name="Practice this lesson").click()
    page.wait_for_url("**/q/*/")
    question = Question.objects.get(attempt__learner=learner)
    part = question.answers[0]
    box = page.get_by_label(f"Weights memory ({part['unit']})")

    # By the button (a click, as a pointer or a switch device would).
    box.fill(gib_slip_text(part))
    page.locator("form.answer .actions").get_by_role("button", name="Check answer").click()
    page.locator(".feedback.bad").wait_for()
    page.wait_for_function("() => document.activeElement.classList.contains('feedback')")
    tag, ident, cls, text = focused(page)
    assert ident == f"fb-{question.pk}-weights" and "Not correct" in text
    said = page.locator("#announcer").inner_text()
    assert "GB and GiB mixed up" in said, said  # the named mistake, read out
    other = "GiB" if part["unit"] == "GB" else "GB"
    assert f"That is the size in {other}." in said
    page.keyboard.press("Tab")
    assert focused(page)[3].startswith("Hint 1 of"), focused(page)
    page.keyboard.press("Tab")
    assert focused(page)[3] == "Show the answer", focused(page)
    checked(page, width, "question after a check by the button")

    # By Enter in the box: the same.
    box = page.get_by_label(f"Weights memory ({part['unit']})")
    box.fill("1")
    box.press("Enter")
    page.wait_for_function("() => !!document.querySelector('.feedback .meta')")  # "(try 2)"
    page.wait_for_function("() => document.activeElement.classList.contains('feedback')")
    assert focused(page)[1] == f"fb-{question.pk}-weights"
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    assert focused(page)[3] == "Show the answer"

    # The reveal, from the keyboard, still works through its own form.
    page.keyboard.press("Enter")
    page.locator("span.answer").wait_for()
    expect(page.get_by_text("You asked for this part's answer")).to_be_visible()
    checked(page, width, "question after the reveal")
    assert refused == []  # no inline script or style after the swaps
