"""Memo pages on hostile text: a stored memo of 59,000 `[` (under the 60,000 limit) opens
for its instructor and its learner and is reviewed, because the pages show the HTML made
at submission and never parse the memo on a view.

Python-Markdown rendered the page on every view and was quadratic on `[`: this memo
timed out a worker (a 500) on every view, its instructor's included."""

from __future__ import annotations

import pytest

from assess.memo_review.memo_markdown import memo_html
from assess.models import MemoVersion
from assess.services.memos import memo_submit
from tests.factories import CourseFactory, UserFactory
from tests.growth import calls

pytestmark = pytest.mark.django_db

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
