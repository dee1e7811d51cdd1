"""Under the content security policy, in chromium: an exam page (its countdown ticking,
htmx saving an answer with its CSRF header) and the Swagger page run with no violation
reported, neither as a securitypolicyviolation event nor in the console."""

import re

import pytest

from assess.models import Attempt, Response
from tests.frontend.helpers import right_text

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Runs in every document before its own scripts (through DevTools: no policy applies).
RECORD = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__violations.push(e.violatedDirective + " " + (e.blockedURI || "inline"));
});
"""


def _watch(page) -> list[str]:
    console: list[str] = []
    page.add_init_script(RECORD)
    page.on(
        "console",
        lambda msg: console.append(msg.text) if "Content Security Policy" in msg.text else None,
    )
    return console


def test_exam_and_swagger_pages_run_without_a_policy_violation(page, start_timed_exam):
    console = _watch(page)
    start_timed_exam(page)

    # The countdown (a static script) runs and ticks.
    first = page.locator("#countdown").inner_text()
    assert re.fullmatch(r"\d+:\d\d", first)
    page.wait_for_function(
        "first => document.getElementById('countdown').textContent !== first", arg=first
    )

    # htmx (configured by its meta tag) saves an answer: its POST carries X-CSRFToken.
    attempt = Attempt.objects.get()
    question = attempt.questions.order_by("order").first()
    part = question.answers[0]
    box = page.get_by_label(f"Weights memory ({part['unit']})")
    box.fill(right_text(part))
    box.press("Tab")
    page.locator(f"#save-{question.pk}").get_by_text("Saved at").wait_for()
    assert Response.objects.get().correct is True
    assert page.evaluate("() => window.__violations") == []

    # The Swagger page: its bundle and set-up script are files, its styles a sheet.
    page.goto("/api/docs/")
    page.locator(".swagger-ui .info .title").get_by_text("Burn-in API").wait_for()
    page.locator(".opblock").first.wait_for()
    assert page.evaluate("() => window.__violations") == []
    assert console == []
