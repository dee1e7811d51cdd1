"""What a learner types stays in the browser until it is saved (frontend/static/frontend/
drafts.js): a reload brings it back, said to be unsaved; a save forgets it; it is never an
answer the server holds; signing out forgets every draft (the response's Clear-Site-Data),
and a finished attempt's page forgets that attempt's. No request leaves the page while
the learner types."""

import pytest

from assess.models import Attempt, Response
from tests.frontend.helpers import right_text

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DRAFT_KEYS = "() => Object.keys(localStorage).filter(k => k.startsWith('burnin-draft:')).sort()"


def test_a_draft_survives_a_reload_is_forgotten_once_saved_and_never_counts(
    page, sign_in, start_timed_exam
):
    start_timed_exam(page)
    attempt = Attempt.objects.get()
    first, second = attempt.questions.order_by("order")
    box = page.locator(f"#q-{first.pk} input[type=text]").first
    key = f"burnin-draft:{attempt.learner_id}:{attempt.pk}:{first.pk}:{first.answers[0]['name']}"

    posts = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    box.fill(right_text(first.answers[0]))
    page.locator(f"#draft-{first.pk}").get_by_text("Draft kept in this browser").wait_for()
    assert posts == []  # typing sends nothing
    assert page.evaluate(DRAFT_KEYS) == [key]

    page.reload()
    box = page.locator(f"#q-{first.pk} input[type=text]").first
    assert box.input_value() == right_text(first.answers[0])
    assert "not saved yet" in page.locator(f"#draft-{first.pk}").inner_text()
    assert not Response.objects.exists()  # a draft is not an answer

    box.focus()
    box.press("Tab")  # unchanged since the reload: leaving the box saves nothing
    box.fill(right_text(first.answers[0]) + " ")  # an edit, then leaving it: the autosave
    box.press("Tab")
    page.locator(f"#save-{first.pk}").get_by_text("Saved at").wait_for()
    assert Response.objects.count() == 1
    assert page.evaluate(DRAFT_KEYS) == []  # saved: the draft is done

    # Signing out forgets every draft: the next person at this browser sees none.
    page.locator(f"#q-{second.pk} input[type=text]").first.fill("12 KiB")
    page.reload()  # kept in the browser only: a box left by a click would autosave it
    assert len(page.evaluate(DRAFT_KEYS)) == 1
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url("**/")
    assert page.evaluate(DRAFT_KEYS) == []
    sign_in(page, "learner", f"/attempts/{attempt.pk}/")
    assert page.locator(f"#q-{second.pk} input[type=text]").first.input_value() == ""

    # A draft left unsaved is not submitted; the finished attempt's page forgets it.
    page.locator(f"#q-{second.pk} input[type=text]").first.fill("12 KiB")
    page.reload()  # restored, and Finish below takes no focus from a box it changed
    page.get_by_role("button", name="Finish and submit").click()
    page.get_by_text("Submit with blank parts?").wait_for()
    assert Response.objects.count() == 1
    page.get_by_role("button", name="Submit anyway").click()
    page.get_by_text("Submitted at").wait_for()
    assert page.evaluate(DRAFT_KEYS) == []
