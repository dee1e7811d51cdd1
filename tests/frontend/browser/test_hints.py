"""Stepwise hints in chromium, at a laptop's width (1280 px) and a phone's (390 px): the
"Hint 1 of n" button swaps the question in place (htmx), the hint shows under the part,
the typed answer survives, and nothing is wider than a phone's screen.
One page, two widths, so the test stays cheap."""

import pytest
from playwright.sync_api import expect

from assess.models import Hint
from assess.selectors.hints import question_hints

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_hints_in_place_at_both_widths(page, shot, sign_in, learner, practice):
    question = practice.question
    total = len(question_hints(question))
    address = f"/attempts/{practice.attempt.pk}/q/{question.pk}/"
    sign_in(page, learner.username, address)
    part = question.answers[0]
    page.get_by_label(f"{part['label']} ({part['unit']})").fill("12")

    page.get_by_role("button", name=f"Hint 1 of {total}").click()
    page.locator(".hint-step").first.wait_for()
    expect(page.get_by_text(f"Hint 1 of {total}", exact=True)).to_be_visible()
    assert page.url.endswith(address)  # swapped in place, no navigation
    assert page.get_by_label(f"{part['label']} ({part['unit']})").input_value() == "12"
    assert Hint.objects.filter(question=question).count() == 1
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    shot(page, "hint-1280")

    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    assert page.locator(".hint-step").count() == 1  # stored: the page shows it again
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "hint-390")
