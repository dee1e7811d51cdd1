"""Gradebooks: /teach/quizzes/<pk>/gradebook/ and /teach/courses/<slug>/gradebook/, their
CSVs, who may open them, which learners an LMS-scoped instructor sees, and a fixed
number of queries however many learners and quizzes."""

from __future__ import annotations

import csv
import io
import re
from datetime import UTC, timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from lti_tool.models import LtiMembership, LtiUser

from assess.models import CourseRole, Quiz
from assess.selectors.gradebook import counted_of
from assess.services.attempts import attempt_finish, attempt_start
from assess.services.responses import response_submit
from tests.factories import (
    CourseFactory,
    CourseRoleFactory,
    EnrolmentFactory,
    QuizFactory,
    UserFactory,
)
from tests.frontend.helpers import right_text

pytestmark = pytest.mark.django_db


def take(quiz, learner, *, right: bool, finish: bool = True):
    """An attempt with every part answered right (2 / 2 on the exam) or none (0 / 2)."""
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    if right:
        for q in attempt.questions.order_by("order"):
            for i, part in enumerate(q.answers):
                response_submit(
                    attempt=attempt,
                    question=q,
                    part=part["name"],
                    text=right_text(part),
                    idempotency_key=f"{attempt.pk}-{q.pk}-{i}",
                )
    if finish:
        attempt_finish(attempt=attempt)
    attempt.refresh_from_db()
    return attempt


def enrol(course, username: str, **names):
    user = UserFactory(username=username, **names)
    EnrolmentFactory(user=user, course=course)
    return user


@pytest.fixture
def graded(exam):
    """ann: 0 then 2 of 2 (best counts 2); bob: one attempt in progress; cy: none."""
    course = exam.course
    ann = enrol(course, "ann", first_name="Ann", last_name="Lee")
    bob = enrol(course, "bob")
    enrol(course, "cy")
    first = take(exam, ann, right=False)
    second = take(exam, ann, right=True)
    open_ = take(exam, bob, right=False, finish=False)
    return {"first": first, "second": second, "open": open_}


def csv_rows(response) -> list[list[str]]:
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    return list(csv.reader(io.StringIO(response.getvalue().decode())))


# ------------------------------------------------------------------ per-quiz gradebook


def test_quiz_gradebook_shows_each_learners_counted_score_and_attempts(
    login, instructor, exam, graded
):
    html = login(instructor).get(f"/teach/quizzes/{exam.pk}/gradebook/").content.decode()
    assert "Gradebook: Sizing exam" in html
    assert ">Attempts used</th>" in html  # a bare "Attempts: 2" said neither used nor allowed
    assert "Ann Lee" in html and "(ann)" in html and "ann@example.com" in html
    assert "2 / 2" in html and "0 / 2" not in html  # the best of ann's two counts
    assert "100%" in html
    assert "in progress" in html  # bob
    for attempt in (graded["first"], graded["second"], graded["open"]):
        assert f'href="/attempts/{attempt.pk}/"' in html
    cy = html.split('<th scope="row">cy</th>')[1].split("</tr>")[0]  # enrolled, no attempt
    assert cy.count('class="num">-<') == 3 and cy.count("<td>-</td>") == 3


def test_the_drill_down_opens_the_attempt_for_the_instructor(login, instructor, graded):
    client = login(instructor)
    assert client.get(f"/attempts/{graded['first'].pk}/").status_code == 200


def test_last_attempt_counts_when_the_quiz_says_so(login, instructor, exam, graded):
    Quiz.objects.filter(pk=exam.pk).update(counting_attempt=Quiz.Counting.LAST)
    rows = csv_rows(login(instructor).get(f"/teach/quizzes/{exam.pk}/gradebook.csv"))
    ann = next(r for r in rows if r[1] == "ann")
    assert ann[4] == str(graded["second"].number) and ann[5] == "2"
    # The second attempt is also the last; make the first finish later to tell them apart.
    graded["first"].finished_at = graded["second"].finished_at + timedelta(minutes=1)
    assert counted_of([graded["first"], graded["second"]], "last") == graded["first"]
    assert counted_of([graded["first"], graded["second"]], "best") == graded["second"]
    assert counted_of([graded["open"]], "best") is None


def test_quiz_csv_has_names_dates_scores_and_attempts(login, instructor, exam, graded):
    response = login(instructor).get(f"/teach/quizzes/{exam.pk}/gradebook.csv")
    assert f'filename="gradebook-quiz-{exam.pk}.csv"' in response["Content-Disposition"]
    rows = csv_rows(response)
    assert rows[0][:8] == [
        "name",
        "username",
        "email",
        "attempts",
        "counted attempt",
        "points",
        "points possible",
        "percent",
    ]
    by_user = {r[1]: r for r in rows[1:]}
    assert list(by_user) == ["ann", "bob", "cy"]
    ann = by_user["ann"]
    assert ann[:8] == ["Ann Lee", "ann", "ann@example.com", "2", "2", "2", "2", "100"]
    second = graded["second"]
    assert ann[8] == second.started_at.astimezone(UTC).isoformat(timespec="seconds")
    assert ann[9].endswith("+00:00") and ann[9].startswith(str(second.finished_at.year))
    assert int(ann[10]) >= 0 and ann[11] == "yes"
    assert by_user["bob"][3:8] == ["1", "", "", "2", ""]  # in progress: no score yet
    assert by_user["cy"][3] == "0"


def test_csv_cells_that_a_spreadsheet_would_run_are_quoted(login, instructor, exam):
    enrol(exam.course, "mallory", first_name="=HYPERLINK(1)", last_name="x")
    enrol(exam.course, "plus", first_name="+1", last_name="")
    client = login(instructor)
    for url in (f"/teach/quizzes/{exam.pk}/gradebook.csv", "/teach/courses/ai-infra/gradebook.csv"):
        names = {r[1]: r[0] for r in csv_rows(client.get(url))[1:]}
        assert names["mallory"] == "'=HYPERLINK(1) x"
        assert names["plus"] == "'+1"


def test_an_unreleased_exam_grade_shows_to_the_instructor(login, instructor, course):
    closes = timezone.now() + timedelta(days=1)
    exam = QuizFactory(
        course=course, mode="exam", feedback="after_close", closes_at=closes, title="Final"
    )
    learner = enrol(course, "dee")
    take(exam, learner, right=True)
    html = login(instructor).get(f"/teach/quizzes/{exam.pk}/gradebook/").content.decode()
    assert "1 / 1" in html and "not yet shown to the learner" in html
    rows = csv_rows(login(instructor).get(f"/teach/quizzes/{exam.pk}/gradebook.csv"))
    assert rows[1][5:8] == ["1", "1", "100"] and rows[1][11] == "no"


# ---------------------------------------------------------------- per-course gradebook


def test_course_gradebook_has_learners_by_quizzes(login, instructor, exam, graded, course):
    drill = QuizFactory(
        course=course, title="Drill", slots=[{"templates": ["weights-memory"], "points": 3}]
    )
    QuizFactory(course=course, title="Practice box", adaptive=True)
    QuizFactory(course=CourseFactory(slug="elsewhere"), title="Other course quiz")
    QuizFactory(course=course, title="Unpublished draft", status=Quiz.Status.DRAFT)
    html = login(instructor).get("/teach/courses/ai-infra/gradebook/").content.decode()
    assert "Unpublished draft" not in html  # no one can have taken it: no empty column
    assert "Gradebook: AI Infra" in html
    assert f'href="/teach/quizzes/{exam.pk}/gradebook/"' in html
    assert f'href="/teach/quizzes/{drill.pk}/gradebook/"' in html
    assert "Practice box" not in html and "Other course quiz" not in html
    assert f'href="/attempts/{graded["second"].pk}/"' in html and "2 / 2" in html
    assert "in progress" in html and "2 attempts" in html and "0 attempts" in html

    rows = csv_rows(login(instructor).get("/teach/courses/ai-infra/gradebook.csv"))
    assert rows[0][:8] == [
        "name",
        "username",
        "email",
        "Sizing exam: points",
        "Sizing exam: points possible",
        "Sizing exam: percent",
        "Sizing exam: attempts",
        "Sizing exam: finished (UTC)",
    ]
    assert rows[0][8:10] == ["Drill: points", "Drill: points possible"]
    assert not any(h.startswith("Unpublished draft") for h in rows[0])
    ann = rows[1]
    assert ann[:7] == ["Ann Lee", "ann", "ann@example.com", "2", "2", "100", "2"]
    assert ann[7].endswith("+00:00")
    assert ann[8:12] == ["", "3", "", "0"]


# ------------------------------------------------------------------------------ access


def urls(exam) -> list[str]:
    return [
        f"/teach/quizzes/{exam.pk}/gradebook/",
        f"/teach/quizzes/{exam.pk}/gradebook.csv",
        "/teach/courses/ai-infra/gradebook/",
        "/teach/courses/ai-infra/gradebook.csv",
    ]


def test_learners_get_404(login, enrolled, exam):
    """A gradebook is a page of one object: to a learner it is not there (404), as
    every other /teach/ page of one quiz or course is (tests/access)."""
    client = login(enrolled)
    assert [client.get(u).status_code for u in urls(exam)] == [404] * 4


def test_signed_out_visitors_are_sent_to_sign_in(client, exam):
    assert all(client.get(u).status_code == 302 for u in urls(exam))


def test_an_instructor_of_another_course_gets_404(login, exam):
    other = CourseRoleFactory(user__username="t2", course=CourseFactory(slug="other")).user
    client = login(other)
    assert [client.get(u).status_code for u in urls(exam)] == [404] * 4
    assert client.get("/teach/courses/nope/gradebook/").status_code == 404


def test_staff_see_every_gradebook(login, staff, exam, graded):
    client = login(staff)
    assert [client.get(u).status_code for u in urls(exam)] == [200] * 4
    assert "Ann Lee" in client.get(urls(exam)[0]).content.decode()


def test_a_quiz_with_no_course_lists_whoever_attempted_it_for_staff(login, staff, learner):
    quiz = QuizFactory(title="Open drill", course=None)
    take(quiz, learner, right=True)
    UserFactory(username="idle")
    html = login(staff).get(f"/teach/quizzes/{quiz.pk}/gradebook/").content.decode()
    assert '<th scope="row">learner</th>' in html and "1 / 1" in html and "idle" not in html


def test_an_lms_scoped_instructor_sees_only_their_contexts_learners(
    login, exam, graded, lms_context
):
    ann = graded["second"].learner
    lti_user = LtiUser.objects.create(
        registration=lms_context.deployment.registration, sub="sub-ann", auth_user=ann
    )
    LtiMembership.objects.create(user=lti_user, context=lms_context, is_learner=True)
    scoped = UserFactory(username="lms-teacher")
    CourseRole.objects.create(
        user=scoped, course=exam.course, role=CourseRole.Role.INSTRUCTOR, lti_context=lms_context
    )
    client = login(scoped)
    html = client.get(urls(exam)[0]).content.decode()
    assert "Ann Lee" in html and "bob" not in html and ">cy<" not in html
    assert f'href="/attempts/{graded["open"].pk}/"' not in html
    for url in (urls(exam)[1], urls(exam)[3]):
        assert [r[1] for r in csv_rows(client.get(url))[1:]] == ["ann"]
    assert "bob" not in client.get(urls(exam)[2]).content.decode()


# ------------------------------------------------------------------------ teach index


def test_teach_index_links_each_course_and_quiz_gradebook(login, instructor, exam):
    html = login(instructor).get("/teach/").content.decode()
    assert 'href="/teach/courses/ai-infra/gradebook/"' in html
    assert f'href="/teach/quizzes/{exam.pk}/gradebook/"' in html
    assert f'href="/teach/quizzes/{exam.pk}/items/"' in html  # still there


# ----------------------------------------------------------------------- query budget


def count(client, url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def test_gradebook_queries_do_not_grow_with_learners_or_quizzes(
    login, instructor, exam, graded, course
):
    client = login(instructor)
    quiz_url, course_url = urls(exam)[0], urls(exam)[2]
    small = (count(client, quiz_url), count(client, course_url))
    for i in range(4):
        learner = enrol(course, f"extra{i}")
        take(exam, learner, right=bool(i % 2))
        quiz = QuizFactory(course=course, title=f"More {i}")
        take(quiz, learner, right=False)
    assert (count(client, quiz_url), count(client, course_url)) == small
    # session, user, teacher check, the gate(s), points possible, learners, attempts,
    # and the menu's own checks.
    assert max(small) <= 10


def test_the_course_gradebook_shows_a_page_of_learners_with_a_pager(
    login, instructor, exam, course
):
    """A course of thousands rendered whole took 20 s (bench/README.md, scale bench): the
    page shows PAGE_SIZE learners by username, a pager, and the same queries on every
    page; the CSV keeps every learner."""
    from assess.selectors.gradebook import PAGE_SIZE

    for i in range(PAGE_SIZE + 3):
        enrol(course, f"pager-{i:03d}")
    client = login(instructor)
    first = client.get("/teach/courses/ai-infra/gradebook/").content.decode()
    assert "pager-000" in first and f"pager-{PAGE_SIZE - 1:03d}" in first
    assert f"pager-{PAGE_SIZE:03d}" not in first
    assert "Page 1 of 2" in first and 'href="?page=2"' in first
    second = client.get("/teach/courses/ai-infra/gradebook/?page=2").content.decode()
    assert f"pager-{PAGE_SIZE + 2:03d}" in second and "pager-000" not in second
    assert 'href="?page=1"' in second
    # a page past the end, or no number at all, shows a real page rather than an error
    assert "Page 2 of 2" in client.get("/teach/courses/ai-infra/gradebook/?page=9").content.decode()
    assert "Page 1 of 2" in client.get("/teach/courses/ai-infra/gradebook/?page=x").content.decode()
    assert count(client, "/teach/courses/ai-infra/gradebook/?page=2") == count(
        client, "/teach/courses/ai-infra/gradebook/"
    )
    rows = csv_rows(client.get("/teach/courses/ai-infra/gradebook.csv"))
    assert sum(r[1].startswith("pager-") for r in rows) == PAGE_SIZE + 3


def test_the_quiz_gradebook_pages_its_learners_and_an_extension_returns_to_its_page(
    login, instructor, exam, course
):
    from assess.selectors.gradebook import PAGE_SIZE

    for i in range(PAGE_SIZE + 2):
        enrol(course, f"qpager-{i:03d}")
    client = login(instructor)
    url = f"/teach/quizzes/{exam.pk}/gradebook/"
    first = client.get(url).content.decode()
    assert "Page 1 of 2" in first and 'href="?page=2"' in first
    second = client.get(url + "?page=2").content.decode()
    last = f"qpager-{PAGE_SIZE + 1:03d}"
    assert last in second and "qpager-000" not in second
    assert count(client, url + "?page=2") == count(client, url)
    assert exam.time_limit  # so each row offers an extension, which must come back here
    assert '<input type="hidden" name="page" value="2">' in second
    learner = get_user_model().objects.get(username=last)
    back = client.post(f"/teach/quizzes/{exam.pk}/extensions/",
                       {"learner": last, "extra_minutes": "10", "page": "2"})  # fmt: skip
    assert back.status_code == 302
    assert back["Location"].endswith(f"?page=2#learner-{learner.pk}")
    rows = csv_rows(client.get(f"/teach/quizzes/{exam.pk}/gradebook.csv"))
    assert sum(r[1].startswith("qpager-") for r in rows) == PAGE_SIZE + 2


def test_a_row_links_the_latest_attempts_and_the_counted_one_and_counts_the_rest(
    login, instructor, course
):
    from assess.selectors.gradebook import LISTED_ATTEMPTS

    quiz = QuizFactory(course=course, attempts_allowed=None, slots=[["weights-memory"]])
    ann = enrol(course, "ann")
    best = take(quiz, ann, right=True)  # the first attempt is the best: it counts
    rest = [take(quiz, ann, right=False) for _ in range(LISTED_ATTEMPTS + 2)]
    html = login(instructor).get(f"/teach/quizzes/{quiz.pk}/gradebook/").content.decode()
    linked = re.findall(r'href="/attempts/(\d+)/"', html)
    assert linked == [str(a.pk) for a in [best, *rest[-LISTED_ATTEMPTS:]]]
    assert "2 earlier attempts not listed" in html
    assert f'<td class="num">{LISTED_ATTEMPTS + 3}</td>' in html  # attempts used: all
    rows = csv_rows(login(instructor).get(f"/teach/quizzes/{quiz.pk}/gradebook.csv"))
    assert rows[1][1] == "ann" and str(LISTED_ATTEMPTS + 3) in rows[1]
