"""Memo pages on hostile text: a stored memo of 59,000 `[` (under the 60,000 limit) opens
for its instructor and its learner and is reviewed, because the pages show the HTML made
at submission and never parse the memo on a view; and the live preview, which does parse
on each POST, is throttled per user with a 429 and Retry-After, the text kept.

Python-Markdown rendered the page on every view and was quadratic on `[`: this memo
timed out a worker (a 500) on every view, its instructor's included."""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings

from api_common.throttles import PostRateThrottle, parse_rate
from capstone.memo_review.memo_markdown import memo_html
from capstone.models import MemoVersion
from capstone.services import memo_submit
from tests.factories import CourseFactory, UserFactory
from tests.growth import calls

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
BRACKETS = "[" * 59_000
PAGE_GROWTH = 2  # a page of a 59,000-character memo against one of a short memo


@pytest.fixture
def course(db):
    return CourseFactory(slug="foundations-of-ai-infrastructure", title="Foundations")


def _submitted(learner, text, capture) -> MemoVersion:
    with capture(execute=True):  # the review runs (eager Celery) once the version commits
        version = memo_submit(learner=learner, markdown=text)
    version.refresh_from_db()
    return version


def test_a_stored_memo_of_59000_brackets_opens_for_its_instructor_and_learner(
    login, learner, instructor, course, django_capture_on_commit_callbacks
):
    capture = django_capture_on_commit_callbacks
    short = _submitted(UserFactory(), "## Fleet\n\nTwo replicas.", capture)
    hostile = _submitted(learner, BRACKETS, capture)
    assert hostile.review_status == MemoVersion.ReviewStatus.DONE
    assert hostile.html == memo_html(BRACKETS) and BRACKETS in hostile.html

    client = login(instructor)
    for path in ("/teach/memos/{}/", "/capstone/memos/{}/"):  # the decision, the text
        client.get(path.format(short.memo_id))  # warm: the templates are compiled
        base = calls(lambda p=path: client.get(p.format(short.memo_id)))
        response = None

        def view(p=path):
            nonlocal response
            response = client.get(p.format(hostile.memo_id))

        calls(view, budget=PAGE_GROWTH * base)  # OverBudget if the page parses the memo
        assert response.status_code == 200
    assert BRACKETS in response.content.decode()

    response = login(learner).get(f"/capstone/memos/{hostile.memo_id}/")
    assert response.status_code == 200 and BRACKETS in response.content.decode()


def test_the_pages_show_the_html_stored_at_submission(
    login, learner, course, django_capture_on_commit_callbacks
):
    version = _submitted(learner, "## Fleet\n\nTwo replicas.", django_capture_on_commit_callbacks)
    assert version.html == "<h4>Fleet</h4>\n<p>Two replicas.</p>\n"
    MemoVersion.objects.filter(pk=version.pk).update(html="<p>as stored</p>")
    html = login(learner).get(f"/capstone/memos/{version.memo_id}/").content.decode()
    assert "<p>as stored</p>" in html and "Two replicas." not in html


# ---------------------------------------------------------------------- the preview


class Clock:
    def __init__(self, now: float):
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def preview_rate(settings, monkeypatch):
    """Two previews a minute, on a clock the test moves."""
    rates = {**django_settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "memo_preview": "2/m"}
    settings.REST_FRAMEWORK = {**django_settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    clock = Clock(1_000_000.0)
    monkeypatch.setattr(PostRateThrottle, "timer", clock)
    return clock


def test_the_preview_rate_is_per_user_and_configured():
    assert parse_rate(django_settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["memo_preview"]) == (
        30,
        60,
    )


def test_the_preview_past_its_rate_is_a_429_with_retry_after(
    login, learner, other_learner, course, preview_rate
):
    client = login(learner)
    text = "## Demand\n\nPeak 40 requests/s."
    for _ in range(2):
        assert client.post("/capstone/preview/", {"markdown": text}, **HTMX).status_code == 200

    refused = client.post("/capstone/preview/", {"markdown": text}, **HTMX)
    assert refused.status_code == 429 and 1 <= int(refused["Retry-After"]) <= 60
    fragment = refused.content.decode()
    assert "Preview paused" in fragment and "<h4>Demand</h4>" not in fragment

    page = client.post("/capstone/preview/", {"markdown": text})  # without JavaScript
    assert page.status_code == 429 and page["Retry-After"]
    html = page.content.decode()
    assert "Preview paused" in html and "## Demand\n\nPeak 40 requests/s.</textarea>" in html

    other = login(other_learner).post("/capstone/preview/", {"markdown": text}, **HTMX)
    assert other.status_code == 200 and "<h4>Demand</h4>" in other.content.decode()

    preview_rate.now += 61
    again = login(learner).post("/capstone/preview/", {"markdown": text}, **HTMX)
    assert again.status_code == 200 and "<h4>Demand</h4>" in again.content.decode()


def test_submitting_is_not_throttled_by_the_preview(
    login, learner, course, preview_rate, django_capture_on_commit_callbacks
):
    client = login(learner)
    for _ in range(3):
        client.post("/capstone/preview/", {"markdown": "## Fleet"}, **HTMX)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/capstone/write/", {"markdown": "## Fleet\n\nTwo replicas."})
    assert response.status_code == 302 and MemoVersion.objects.get().number == 1
