"""A learner writes the capstone memo in the browser: the live preview follows the typing
(htmx, rendered on the server), and the review page, opened while the review is still
queued, fills in the rubric by itself once a worker has written it."""

import pytest

from capstone import services as memo_services
from capstone.memo_review.example import example_memo
from capstone.models import MemoVersion
from tests.factories import CourseFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_learner_writes_with_a_live_preview_and_the_review_appears(
    page, shot, sign_in, monkeypatch
):
    CourseFactory(slug="foundations-of-ai-infrastructure", title="Foundations")
    learner = UserFactory(username="writer")
    capstone = memo_services.capstone_get_or_create(learner=learner)
    # Keep the review queued: no worker takes it until the test runs it below.
    monkeypatch.setattr(memo_services, "review_enqueue", lambda version_id: True)

    sign_in(page, "writer", "/capstone/write/")
    box = page.get_by_label("Your memo (Markdown)")
    assert "## Assumptions" in box.input_value()
    box.fill("## Fleet\n\nTwelve replicas.\n\n<script>window.bad = 1</script>")
    page.locator("#memo-preview h4", has_text="Fleet").wait_for()
    assert "<script>" in page.locator("#memo-preview .preview").inner_text()  # shown as text
    assert page.evaluate("window.bad") is None
    assert "missing sections: Assumptions" in page.locator("#preview-summary").inner_text()

    box.fill(example_memo(memo_services.capstone_brief(capstone)))
    page.locator("#preview-summary", has_text="every section present").wait_for()
    shot(page, "capstone-write")
    page.get_by_role("button", name="Submit for review").click()
    page.wait_for_url("**/capstone/memos/*/?v=1")
    status = page.locator("#review-status[role=status]")
    assert "queued for review" in status.inner_text()

    version = MemoVersion.objects.get()
    assert memo_services.memo_review_run(version_id=version.pk) == "done"
    page.locator("#review-body table.rubric").wait_for(timeout=15_000)
    assert "Version 1: reviewed" in status.inner_text()
    assert page.locator("#review-poll").get_attribute("hx-get") is None  # polling stopped
    assert page.locator("#shown-version-status").inner_text() == "Done"  # the versions table
    shot(page, "capstone-review")


def test_a_throttled_preview_says_when_it_comes_back(page, sign_in, settings):
    """Past the preview's rate the server answers 429; htmx swaps that fragment in (the
    site's htmx config), so the learner reads why the preview stopped following."""
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "memo_preview": "1/m"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    CourseFactory(slug="foundations-of-ai-infrastructure", title="Foundations")
    memo_services.capstone_get_or_create(learner=UserFactory(username="writer"))

    sign_in(page, "writer", "/capstone/write/")
    box = page.get_by_label("Your memo (Markdown)")
    box.fill("## Fleet\n\nTwelve replicas.")
    page.locator("#memo-preview h4", has_text="Fleet").wait_for()
    box.fill("## Demand\n\nForty requests a second.")
    page.locator("#memo-preview", has_text="Preview paused").wait_for()
    assert "second" in page.locator("#memo-preview [role=status]").inner_text()
    assert box.input_value() == "## Demand\n\nForty requests a second."
