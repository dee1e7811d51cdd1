"""The capstone pages: the brief, writing with a live preview, a version's review (and
its polled status), the instructors' queue and decision form, and who may open what."""

import re

import pytest

from assess.models import Enrolment
from capstone.memo_review.example import example_memo
from capstone.models import Memo, MemoDecision, MemoVersion
from capstone.services import (
    VERSION_INTERVAL,
    capstone_brief,
    capstone_get_or_create,
    memo_decide,
    memo_review_failed,
    memo_review_run,
    memo_submit,
)
from tests.assess.helpers import age_memo_versions
from tests.factories import CourseFactory, CourseRoleFactory, UserFactory
from tests.frontend.test_accessibility import audit

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def course(db):
    """The capstone's course (the services look it up by this slug); `instructor`
    (tests/conftest.py) teaches it."""
    return CourseFactory(
        slug="foundations-of-ai-infrastructure", title="Foundations of AI Infrastructure"
    )


def _memo_text(learner, mistakes=()) -> str:
    return example_memo(capstone_brief(capstone_get_or_create(learner=learner)), mistakes=mistakes)


@pytest.fixture
def reviewed(learner, course, django_capture_on_commit_callbacks):
    """Version 1 of the learner's memo, reviewed (eager Celery, on_commit executed)."""
    with django_capture_on_commit_callbacks(execute=True):
        version = memo_submit(learner=learner, markdown=_memo_text(learner))
    version.refresh_from_db()
    assert version.review_status == MemoVersion.ReviewStatus.DONE
    return version


@pytest.fixture
def queued(learner, course):
    """Version 1, committed but not yet reviewed (its on_commit callback never ran)."""
    return memo_submit(learner=learner, markdown=_memo_text(learner))


def _page_ok(html: str) -> None:
    """One h1, landmarks, every input labelled, no duplicate ids (as test_accessibility)."""
    a = audit(html)
    assert a.tags.count("h1") == 1 and a.tags.count("main") == 1
    assert [i for i in a.inputs if i not in a.labels] == []
    assert not {i for i in a.ids if a.ids.count(i) > 1}


# ------------------------------------------------------------------------- who may see


@pytest.mark.parametrize(
    "path",
    ["/capstone/", "/capstone/write/", "/capstone/memos/1/", "/teach/memos/", "/teach/memos/1/"],
)
def test_anonymous_users_are_sent_to_sign_in(client, course, path):
    response = client.get(path)
    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next={path}"


def test_anonymous_posts_write_nothing(client, course):
    for path in ("/capstone/start/", "/capstone/write/", "/capstone/preview/"):
        assert client.post(path, {"markdown": "## Fleet"})["Location"].startswith("/accounts/")
    assert not MemoVersion.objects.exists()


def test_another_learner_gets_404_on_the_memo_its_status_and_decision(
    login, other_learner, reviewed
):
    client = login(other_learner)
    memo = reviewed.memo_id
    assert client.get(f"/capstone/memos/{memo}/").status_code == 404
    assert client.get(f"/capstone/memos/{memo}/status/?v=1", **HTMX).status_code == 404
    assert client.get(f"/teach/memos/{memo}/").status_code == 404
    assert client.post(f"/teach/memos/{memo}/", {"decision": "approve"}).status_code == 404
    assert Memo.objects.get().status == Memo.Status.IN_REVIEW


def test_learners_cannot_open_the_queue_nor_decide_on_their_own_memo(login, learner, reviewed):
    client = login(learner)
    assert client.get("/teach/memos/").status_code == 403
    assert client.get(f"/teach/memos/{reviewed.memo_id}/").status_code == 404
    data = {"decision": "approve", "version": "1"}
    assert client.post(f"/teach/memos/{reviewed.memo_id}/", data).status_code == 404
    assert not MemoDecision.objects.exists()


def test_an_instructor_of_another_course_gets_404(login, reviewed):
    teacher = CourseRoleFactory(user__username="elsewhere", course=CourseFactory()).user
    client = login(teacher)
    assert client.get(f"/capstone/memos/{reviewed.memo_id}/").status_code == 404
    assert client.get(f"/teach/memos/{reviewed.memo_id}/").status_code == 404
    queue = client.get("/teach/memos/").content.decode()
    assert "No memos yet" in queue and f"/teach/memos/{reviewed.memo_id}/" not in queue


def test_an_unknown_version_is_404(login, learner, reviewed):
    client = login(learner)
    assert client.get(f"/capstone/memos/{reviewed.memo_id}/?v=9").status_code == 404
    assert client.get(f"/capstone/memos/{reviewed.memo_id}/?v=x").status_code == 404


# ------------------------------------------------------------------------------ brief


def test_the_brief_is_drawn_on_request_and_enrols_the_learner(login, learner, course):
    client = login(learner)
    html = client.get("/capstone/").content.decode()
    assert "Get my brief" in html and 'action="/capstone/start/"' in html
    assert not Enrolment.objects.filter(user=learner).exists()  # a GET draws nothing

    assert client.post("/capstone/start/")["Location"] == "/capstone/"
    capstone = learner.capstones.get()
    assert Enrolment.objects.filter(user=learner, course=course).exists()
    client.post("/capstone/start/")
    assert learner.capstones.get().seed == capstone.seed  # drawn once

    html = client.get("/capstone/").content.decode()
    brief = capstone_brief(capstone)
    assert brief.model_name in html and "Key figures" in html
    assert f"<h2>Capstone brief {capstone.seed}" in html  # the brief's # is under the h1
    assert "Not started" in html and 'href="/capstone/write/"' in html
    _page_ok(html)


def test_the_brief_page_lists_versions_with_their_status(login, learner, reviewed):
    html = login(learner).get("/capstone/").content.decode()
    assert f'href="/capstone/memos/{reviewed.memo_id}/?v=1"' in html
    assert "In review" in html and "Done" in html
    assert f"{reviewed.score:g} / {reviewed.max_score:g}" in html


def test_the_capstone_lesson_and_the_teach_page_link_to_the_memo_pages(login, instructor, course):
    from tests.factories import LessonFactory, ModuleFactory

    module = ModuleFactory(course=course, slug="capstone", title="Capstone")
    LessonFactory(module=module, slug="capstone-capacity-memo", title="Capstone Capacity Memo")
    LessonFactory(module=module, slug="other-lesson", title="Other")
    client = login(instructor)
    # The main navigation links /capstone/ on every page; the lesson adds its own button.
    link = 'class="capstone-link"><a class="button" href="/capstone/"'
    assert link in client.get("/lessons/capstone-capacity-memo/").content.decode()
    other = client.get("/lessons/other-lesson/").content.decode()
    assert link not in other and '<a href="/capstone/">Capstone</a>' in other
    assert 'href="/teach/memos/"' in client.get("/teach/").content.decode()


# ------------------------------------------------------------------------------ write


def test_the_brief_link_on_the_writing_page_keeps_the_text(login, learner, course):
    """Following the brief from the form used to replace the page, and the memo with it."""
    html = login(learner).get("/capstone/write/").content.decode()
    link = re.search(r'<a href="/capstone/"[^>]*>your brief[^<]*</a>', html)
    assert link and 'target="_blank"' in link.group(0) and "new tab" in link.group(0)


def test_the_writing_form_starts_from_the_sections(login, learner, course):
    html = login(learner).get("/capstone/write/").content.decode()
    for heading in ("## Assumptions", "## Failure-case test", "## Key figures"):
        assert heading in html
    assert "- Weights: ... GB" in html
    assert '<label for="id_markdown">' in html and 'hx-post="/capstone/preview/"' in html
    assert 'aria-describedby="id_markdown_helptext"' in html
    _page_ok(html)


def test_writing_a_memo_creates_a_version_and_shows_its_review(
    login, learner, course, django_capture_on_commit_callbacks
):
    client = login(learner)
    text = _memo_text(learner)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/capstone/write/", {"markdown": text})
    version = MemoVersion.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/capstone/memos/{version.memo_id}/?v=1"
    assert (version.number, version.markdown, version.review_status) == (1, text, "done")

    html = client.get(response["Location"]).content.decode()
    assert "Version 1: reviewed" in html and 'role="status"' in html
    assert "Version 1 submitted." in html and "queued" not in html  # no stale banner
    assert "hx-get" not in html  # done: nothing polls
    for criterion in version.review["criteria"]:
        assert criterion["title"] in html
    quoted = [c["evidence"] for c in version.review["criteria"] if c["evidence"]]
    assert f'<q class="evidence">{quoted[0]}</q>' in html
    assert f"Score: {version.score:g} / {version.max_score:g}" in html
    assert "No decision yet" in html
    _page_ok(html)


def test_a_resubmission_starts_from_the_last_version_and_adds_version_2(
    login, learner, reviewed, django_capture_on_commit_callbacks
):
    client = login(learner)
    html = client.get("/capstone/write/").content.decode()
    assert "submitting makes version 2" in html
    assert reviewed.markdown.splitlines()[0] in html
    age_memo_versions()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/capstone/write/", {"markdown": reviewed.markdown + "\nMore."})
    assert response["Location"].endswith("?v=2")
    assert list(reviewed.memo.versions.values_list("number", flat=True)) == [1, 2]
    html = client.get(f"/capstone/memos/{reviewed.memo_id}/?v=1").content.decode()
    assert "a later version exists" in html
    assert f'href="/capstone/memos/{reviewed.memo_id}/?v=2"' in html


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("   ", "The memo is empty"),
        ("x" * 60_001, "the limit is 60,000"),
    ],
)
def test_a_refused_memo_is_shown_by_its_field(login, learner, course, text, message):
    response = login(learner).post("/capstone/write/", {"markdown": text})
    html = response.content.decode()
    assert response.status_code == 400
    assert message in html and 'aria-invalid="true"' in html
    assert 'aria-describedby="id_markdown_helptext id_markdown_error"' in html
    assert '<ul class="errorlist" id="id_markdown_error">' in html
    assert not MemoVersion.objects.exists()
    _page_ok(html)


def test_a_memo_with_a_nul_is_refused_before_the_form(login, learner, course):
    """frontend/middleware.py refuses a NUL in any page's form (PostgreSQL text cannot
    hold one), before the form's own field error could say so."""
    response = login(learner).post("/capstone/write/", {"markdown": "a\x00b"})
    assert response.status_code == 400
    assert "NUL character" in response.content.decode()
    assert not MemoVersion.objects.exists()


# ---------------------------------------------------------------------------- preview


def test_the_preview_renders_headings_and_escapes_html(login, learner, course):
    text = (
        "# Plan\n\n## Fleet\n\nCosts $2.50 and $3.10 an hour.\n\n"
        "<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n"
        "[x](javascript:alert(3)) [ok](https://example.com)\n"
    )
    response = login(learner).post("/capstone/preview/", {"markdown": text}, **HTMX)
    html = response.content.decode()
    assert response.status_code == 200
    assert "<h3>Plan</h3>" in html and "<h4>Fleet</h4>" in html  # under the page's h1, h2
    assert "$2.50 and $3.10" in html and "<math" not in html  # prices, not LaTeX
    assert "<script" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<img" not in html and "javascript:" not in html
    assert '<a href="https://example.com" rel="nofollow noopener noreferrer">ok</a>' in html
    assert "missing sections: Assumptions" in html and 'role="status"' in html
    assert not MemoVersion.objects.exists()


def test_the_preview_without_javascript_is_the_writing_page(login, learner, course):
    response = login(learner).post("/capstone/preview/", {"markdown": "## Demand\n\n<b>x</b>"})
    html = response.content.decode()
    assert response.status_code == 200 and "<h1>Write your capstone memo</h1>" in html
    assert "<h4>Demand</h4>" in html and "&lt;b&gt;x&lt;/b&gt;" in html
    assert "## Demand\n\n&lt;b&gt;x&lt;/b&gt;</textarea>" in html  # the text is kept
    _page_ok(html)


def test_the_preview_refuses_an_overlong_memo(login, learner, course):
    html = login(learner).post("/capstone/preview/", {"markdown": "x" * 60_001}, **HTMX)
    assert "longer than 60000 characters" in html.content.decode()


def test_the_preview_is_post_only(login, learner, course):
    assert login(learner).get("/capstone/preview/").status_code == 405


# ----------------------------------------------------------------------- review status


def test_a_queued_review_polls_until_it_is_done(login, learner, queued):
    client = login(learner)
    memo = queued.memo_id
    html = client.get(f"/capstone/memos/{memo}/").content.decode()
    assert "Version 1: queued for review" in html
    poll = f'hx-get="/capstone/memos/{memo}/status/?v=1&amp;seen=queued-0"'
    assert poll in html and 'hx-trigger="every 3s"' in html
    assert re.search(r'<div id="review-status" role="status" aria-live="polite"', html)

    # Unchanged: 204, nothing swapped, nothing announced again.
    status = f"/capstone/memos/{memo}/status/?v=1"
    assert client.get(status + "&seen=queued-0", **HTMX).status_code == 204

    memo_review_run(version_id=queued.pk)
    response = client.get(status + "&seen=queued-0", **HTMX)
    html = response.content.decode()
    assert response.status_code == 200 and "HX-Request" in response["Vary"]
    assert '<div id="review-status" hx-swap-oob="innerHTML">Version 1: reviewed' in html
    assert '<div id="review-poll" hx-swap-oob="true"></div>' in html  # polling stops
    assert '<div id="review-body" hx-swap-oob="true">' in html and "<table" in html
    assert '<span id="shown-version-status" hx-swap-oob="true">Done</span>' in html
    # The status URL is for htmx; a plain visit goes to the page.
    assert client.get(status)["Location"] == f"/capstone/memos/{memo}/?v=1"


def test_a_running_review_shows_a_redelivery(login, learner, queued):
    MemoVersion.objects.filter(pk=queued.pk).update(review_status="running", deliveries=2)
    html = login(learner).get(f"/capstone/memos/{queued.memo_id}/").content.decode()
    assert "being reviewed" in html and "delivery 2" in html and "seen=running-2" in html


def test_a_failed_review_shows_its_reason_and_stops_polling(login, learner, queued):
    memo_review_failed(version_id=queued.pk, reason="database unavailable: gone")
    html = login(learner).get(f"/capstone/memos/{queued.memo_id}/").content.decode()
    assert "the review failed: database unavailable: gone" in html
    assert "hx-get" not in html


# ---------------------------------------------------------------------------- teaching


def test_the_queue_lists_memos_waiting_first(login, instructor, reviewed, course):
    other = UserFactory(username="zed")
    with_decision = memo_submit(learner=other, markdown=_memo_text(other))
    memo_review_run(version_id=with_decision.pk)
    memo_decide(instructor=instructor, memo=with_decision.memo, decision="request_changes")
    html = login(instructor).get("/teach/memos/").content.decode()
    assert html.index("learner") < html.index("zed")  # in review before decided
    assert f'href="/teach/memos/{reviewed.memo_id}/"' in html
    assert f"{reviewed.score:g} / {reviewed.max_score:g}" in html
    assert "Changes requested" in html and "In review" in html and "Done" in html
    _page_ok(html)


def test_the_queue_costs_the_same_queries_for_many_memos(
    login, instructor, course, django_assert_max_num_queries
):
    client = login(instructor)
    for i in range(12):
        user = UserFactory(username=f"l{i}")
        version = memo_submit(learner=user, markdown=f"## Fleet\n\nmemo {i}")
        memo_review_run(version_id=version.pk)
        memo_submit(
            learner=user,
            markdown=f"## Fleet\n\nmemo {i}, v2",
            now=version.created_at + VERSION_INTERVAL,
        )
    MemoDecision.objects.create(
        memo=Memo.objects.first(), version=MemoVersion.objects.first(), instructor=instructor,
        decision="request_changes",
    )  # fmt: skip
    with django_assert_max_num_queries(8):
        html = client.get("/teach/memos/").content.decode()
    assert html.count('href="/teach/memos/') == 12 and "12 memos" in html


def _queued_memo(writer, course, *, versions: int, decided_by=None) -> Memo:
    """A memo of `versions` reviewed versions; with `decided_by`, changes requested on
    the latest (a decision the queue names with its version)."""
    from capstone.models import Capstone

    memo = Memo.objects.create(
        capstone=Capstone.objects.create(learner=writer, course=course, seed=writer.pk)
    )
    for number in range(1, versions + 1):
        version = MemoVersion.objects.create(
            memo=memo, number=number, markdown=f"# Plan v{number}", review={"criteria": []},
            review_status=MemoVersion.ReviewStatus.DONE, score=5.0 + number, max_score=10.0,
        )  # fmt: skip
    if decided_by is not None:
        MemoDecision.objects.create(
            memo=memo, version=version, instructor=decided_by, decision="request_changes"
        )
        Memo.objects.filter(pk=memo.pk).update(status=Memo.Status.CHANGES_REQUESTED)
    return memo


def test_the_queue_queries_do_not_grow_with_memos_versions_or_decisions(login, instructor, course):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client = login(instructor)

    def queue() -> tuple[int, str]:
        with CaptureQueriesContext(connection) as ctx:
            response = client.get("/teach/memos/")
        assert response.status_code == 200
        read = " ".join(q["sql"] for q in ctx.captured_queries)
        for column in ("markdown", "html", "review"):  # neither a version's nor a decision's
            assert f'"capstone_memoversion"."{column}"' not in read
        return len(ctx.captured_queries), response.content.decode()

    _queued_memo(UserFactory(username="few0"), course, versions=1)
    _queued_memo(UserFactory(username="few1"), course, versions=1, decided_by=instructor)
    small, html = queue()
    assert "2 memos" in html
    for i in range(12):  # each with three versions, every other one decided
        writer = UserFactory(username=f"many{i:02d}")
        _queued_memo(writer, course, versions=3, decided_by=instructor if i % 2 else None)
    large, html = queue()
    assert large == small
    assert "14 memos" in html and html.count('href="/teach/memos/') == 14
    assert all(f"many{i:02d}<span" in html for i in range(12))
    assert html.count("(last: request changes on v3)") == 6  # each decision's version
    assert html.count("8 / 10") == 12  # each memo's latest version's score


def test_an_instructor_approves_with_adjustments_and_the_learner_sees_them(
    client, login, learner, instructor, reviewed
):
    memo = reviewed.memo_id
    criteria = reviewed.review["criteria"]
    teacher = login(instructor)
    html = teacher.get(f"/teach/memos/{memo}/").content.decode()
    assert '<input type="radio" name="decision" value="approve"' in html
    assert '<label for="id_c0_points">' in html and '<label for="id_comment">' in html
    _page_ok(html)

    low = criteria[0]
    response = teacher.post(
        f"/teach/memos/{memo}/",
        {
            "decision": "approve",
            "version": "1",
            "comment": "Clear plan; the failure test is convincing.",
            "c0_points": str(low["max_points"] - 1),
            "c0_comment": "The assumptions miss the prefix cache.",
        },
    )
    assert response["Location"] == f"/teach/memos/{memo}/"
    decision = MemoDecision.objects.get()
    assert decision.adjustments == [
        {
            "criterion": low["code"],
            "points": float(low["max_points"] - 1),
            "comment": "The assumptions miss the prefix cache.",
        }
    ]
    assert Memo.objects.get().status == Memo.Status.APPROVED

    learner_client = login(learner)
    html = learner_client.get(f"/capstone/memos/{memo}/").content.decode()
    assert "Approved" in html and "Clear plan; the failure test is convincing." in html
    assert "The assumptions miss the prefix cache." in html
    assert f"adjusted by the instructor: {reviewed.score - 1:g}" in html
    # An approved memo takes no more versions: the form is gone and a post is refused.
    assert "takes no more versions" in learner_client.get("/capstone/write/").content.decode()
    response = learner_client.post("/capstone/write/", {"markdown": "## Fleet"})
    assert response.status_code == 400 and "approved" in response.content.decode()
    assert MemoVersion.objects.count() == 1


def test_request_changes_shows_on_the_learners_pages(login, learner, instructor, reviewed):
    login(instructor).post(
        f"/teach/memos/{reviewed.memo_id}/",
        {"decision": "request_changes", "version": "1", "comment": "Size for the p99."},
    )
    client = login(learner)
    html = client.get("/capstone/").content.decode()
    assert "Changes requested" in html and "Revise and resubmit" in html
    html = client.get(f"/capstone/memos/{reviewed.memo_id}/").content.decode()
    assert "Request changes" in html and "Size for the p99." in html


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"c0_points": "1"}, "Say why the points changed."),
        ({"c0_points": "999", "c0_comment": "x"}, "less than or equal to"),
        ({"decision": "maybe"}, "Select a valid choice"),
        ({"version": "7"}, "A new version arrived"),
    ],
)
def test_a_refused_decision_is_shown_by_its_field(login, instructor, reviewed, extra, message):
    data = {"decision": "approve", "version": "1", **extra}
    response = login(instructor).post(f"/teach/memos/{reviewed.memo_id}/", data)
    html = response.content.decode()
    assert response.status_code == 400 and message in html
    assert not MemoDecision.objects.exists()
    _page_ok(html)
    assert Memo.objects.get().status == Memo.Status.IN_REVIEW


def test_the_service_error_lands_beside_the_adjusted_criterion(login, instructor, reviewed):
    """The form's own bounds passed but the service refused: its field names the
    adjustment's index, which the form maps back to that criterion's input."""
    from frontend.memo_forms import DecisionForm

    criteria = reviewed.review["criteria"]
    form = DecisionForm(
        {"decision": "approve", "version": "1", "c2_points": "0", "c2_comment": "why"},
        criteria=criteria,
    )
    assert form.is_valid()
    from api_common.service_errors import InvalidInput

    form.add_service_error(InvalidInput("bad points", field="adjustments.0.points"))
    assert form.errors == {"c2_points": ["bad points"]}


def test_the_decision_page_shows_the_memo_beside_the_rubric(login, instructor, reviewed):
    """The rubric used to stand alone, the memo a link away."""
    html = login(instructor).get(f"/teach/memos/{reviewed.memo_id}/").content.decode()
    memo = html.index('<div class="memo-body">')
    rubric = html.index('id="review-h"')
    assert html.index('class="two-col memo-decide"') < memo < rubric
    assert reviewed.html and reviewed.html in html
    _page_ok(html)


def test_no_decision_form_before_the_review_is_done(login, instructor, queued):
    html = login(instructor).get(f"/teach/memos/{queued.memo_id}/").content.decode()
    assert "has no finished review yet" in html and 'name="decision"' not in html
    assert "hx-get" in html  # the instructor's page follows the review too


def test_an_instructor_neither_queues_nor_decides_on_their_own_memo(
    login, instructor, course, django_capture_on_commit_callbacks
):
    """Separation of duties on the pages: an instructor's own memo is not in their
    queue, its decision page says another instructor decides and offers no form, and a
    post decides nothing; a colleague sees it queued with the form."""
    with django_capture_on_commit_callbacks(execute=True):
        version = memo_submit(learner=instructor, markdown=_memo_text(instructor))
    client = login(instructor)
    path = f"/teach/memos/{version.memo_id}/"
    assert path not in client.get("/teach/memos/").content.decode()
    html = client.get(path).content.decode()
    assert "your own memo" in html and 'class="decision-form"' not in html
    response = client.post(path, {"decision": "approve", "version": "1"})
    assert response.status_code == 400 and "your own memo" in response.content.decode()
    assert not MemoDecision.objects.exists()
    colleague = login(CourseRoleFactory(user__username="colleague", course=course).user)
    assert path in colleague.get("/teach/memos/").content.decode()
    assert 'class="decision-form"' in colleague.get(path).content.decode()


def test_a_version_within_a_minute_is_a_429_and_the_text_stays(login, learner, reviewed):
    """One new version a memo a minute, on the page as in the API: the form comes back
    with the reason and the learner's text, nothing stored."""
    text = reviewed.markdown + "\nA second thought."
    response = login(learner).post("/capstone/write/", {"markdown": text})
    assert response.status_code == 429 and int(response["Retry-After"]) <= 60
    html = response.content.decode()
    assert "one new version a minute" in html and "A second thought." in html
    assert reviewed.memo.versions.count() == 1


def test_the_queue_pages_its_memos(login, instructor, course):
    """Past QUEUE_PAGE_SIZE memos the queue shows a pager (frontend/_pager.html)."""
    from capstone.models import Capstone
    from capstone.pages import QUEUE_PAGE_SIZE

    for i in range(QUEUE_PAGE_SIZE + 1):
        writer = UserFactory(username=f"writer-{i:03d}")
        memo = Memo.objects.create(
            capstone=Capstone.objects.create(learner=writer, course=course, seed=i)
        )
        MemoVersion.objects.create(memo=memo, number=1, markdown=f"# Plan {i}")
    client = login(instructor)
    first = client.get("/teach/memos/").content.decode()
    assert 'aria-label="Pages of memos"' in first and "Page 1 of 2" in first
    assert 'href="?page=2"' in first
    second = client.get("/teach/memos/?page=2").content.decode()
    assert "Page 2 of 2" in second and 'href="?page=1"' in second
