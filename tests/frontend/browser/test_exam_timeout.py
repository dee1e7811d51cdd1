"""An exam runs out of time in the browser: the autosaved answer is kept and counted."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from assess.models import Attempt, Response
from tests.frontend.helpers import right_text

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_exam_times_out_and_keeps_the_autosaved_answer(page, shot, start_timed_exam):
    start_timed_exam(page)
    attempt = Attempt.objects.get()
    timer = page.locator("#countdown")
    assert re.fullmatch(r"\d+:\d\d", timer.inner_text())  # the script took over the clock

    question = attempt.questions.order_by("order").first()
    part = question.answers[0]
    box = page.get_by_label(f"Weights memory ({part['unit']})")
    box.fill(right_text(part))
    box.press("Tab")  # leaving the box fires change: graded autosave through htmx
    page.locator(f"#save-{question.pk}").get_by_text("Saved at").wait_for()
    assert page.locator(".feedback").count() == 0  # graded, but hidden in an exam
    assert Response.objects.get().correct is True
    shot(page, "exam")

    # A minute left: said once, politely, in its own live region (the clock is silent).
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() + timedelta(seconds=62))
    page.reload()
    assert page.locator("#countdown").get_attribute("aria-live") == "off"
    warning = page.locator("#countdown-warning")
    assert warning.get_attribute("aria-live") == "polite"
    # A function, not an expression: Playwright evaluates an expression with eval, which
    # the page's content security policy refuses.
    page.wait_for_function(
        "() => document.getElementById('countdown-warning').textContent === '1 minute left.'",
        timeout=10_000,
    )

    # Bring the deadline close: the countdown reaches zero and reloads the page.
    Attempt.objects.filter(pk=attempt.pk).update(deadline=timezone.now() + timedelta(seconds=3))
    page.reload()
    page.get_by_text("Time is up: your saved answers were submitted.").wait_for(timeout=20_000)
    attempt.refresh_from_db()
    assert attempt.status == Attempt.Status.EXPIRED
    assert attempt.score == pytest.approx(0.5)
    assert "Score: 1 of 2 points (50%)" in page.locator("#score").inner_text()
    shot(page, "exam-time-up")
