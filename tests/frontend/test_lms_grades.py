"""/teach/quizzes/<pk>/lms-grades/: the quiz's instructors see what each LMS gradebook
should hold and whether it does, and resend what failed; the item analysis links to it
once there is anything to see. 404 for anyone else."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from lti_tool.models import LtiUser

from lti.models import ScoreSync
from tests.factories import CourseFactory, CourseRoleFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def context(lms_context):
    return lms_context


def sync(context, quiz, learner, state, **fields) -> ScoreSync:
    lti_user = LtiUser.objects.create(
        registration=context.deployment.registration, sub=f"sub-{learner.username}"
    )
    values = {
        "score_given": 1.5,
        "score_maximum": 2.0,
        "timestamp": timezone.now() - timedelta(minutes=5),
        "tries": 1,
    }
    if state == "sent":
        values |= {"sent_score_given": 1.5, "sent_at": timezone.now()}
    return ScoreSync.objects.create(
        context=context,
        quiz=quiz,
        lti_user=lti_user,
        learner=learner,
        state=state,
        **(values | fields),
    )


@pytest.fixture
def rows(context, exam):
    return {
        "ann": sync(context, exam, UserFactory(username="ann", first_name="Ann"), "sent"),
        "bob": sync(
            context,
            exam,
            UserFactory(username="bob", first_name="Bob", last_name="Baker"),
            "failed",
            permanent=True,
            reason="The LMS answered 422: user not in course",
        ),
        "cy": sync(context, exam, UserFactory(username="cy"), "failed", reason="Timed out"),
        "dee": sync(context, exam, UserFactory(username="dee"), "pending", tries=0),
    }


@pytest.fixture
def queued(monkeypatch):
    calls: list[list[int]] = []
    monkeypatch.setattr("lti.grades.enqueue", lambda ids: calls.append(sorted(ids)))
    return calls


def url(quiz) -> str:
    return f"/teach/quizzes/{quiz.pk}/lms-grades/"


def test_the_page_lists_rows_failed_first_with_the_counts(client, instructor, exam, rows):
    client.force_login(instructor)
    response = client.get(url(exam))
    assert response.status_code == 200
    html = response.content.decode()
    assert "<h1>LMS grades: Sizing exam</h1>" in html
    assert "3 scores not yet in the LMS gradebook" in html
    assert "(2 failed, 1 waiting to send)" in html and "1 score sent." in html
    # failed first (by name), then pending, then sent
    order = [html.index(name) for name in ("Bob Baker", "sub-cy", "sub-dee", "sub-ann")]
    assert order == sorted(order)
    assert "LMS course A" in html
    assert "The LMS answered 422: user not in course" in html and "Timed out" in html
    assert "the LMS refused it" in html and "retries ran out" in html
    assert "In the gradebook" in html and "Waiting to send" in html
    assert "1.5 of 2" in html
    assert "Resend failed scores" in html
    assert 'name="csrfmiddlewaretoken"' in html
    # a per-row resend for the two failed rows only
    assert html.count('name="sync"') == 2
    assert f'name="sync" value="{rows["bob"].pk}"' in html
    assert f'name="sync" value="{rows["ann"].pk}"' not in html


def test_a_quiz_with_every_score_sent_offers_no_resend(client, instructor, exam, context):
    sync(context, exam, UserFactory(username="ann"), "sent")
    client.force_login(instructor)
    html = client.get(url(exam)).content.decode()
    assert "Every score is in the LMS gradebook." in html
    assert "Resend failed scores" not in html and 'name="sync"' not in html


def test_a_quiz_without_rows_says_so(client, instructor, exam):
    client.force_login(instructor)
    html = client.get(url(exam)).content.decode()
    assert "No grade of this quiz has gone to an LMS" in html


def test_resend_all_requeues_failed_rows_and_redirects_with_a_message(
    client, instructor, exam, rows, queued, django_capture_on_commit_callbacks
):
    client.force_login(instructor)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url(exam))
    assert response.status_code == 303
    assert response["Location"] == url(exam)
    assert queued == [sorted([rows["bob"].pk, rows["cy"].pk, rows["dee"].pk])]
    states = dict(ScoreSync.objects.values_list("learner__username", "state"))
    assert states == {"ann": "sent", "bob": "pending", "cy": "pending", "dee": "pending"}
    html = client.get(response["Location"]).content.decode()
    assert "3 scores queued to send to the LMS again." in html
    assert "Resend failed scores" in html  # pending now, so still unsent
    assert 'name="sync"' not in html  # no failed row left


def test_resend_one_row(client, instructor, exam, rows, queued, django_capture_on_commit_callbacks):
    client.force_login(instructor)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url(exam), {"sync": rows["bob"].pk}, follow=True)
    assert response.redirect_chain == [(url(exam), 303)]
    assert "1 score queued to send to the LMS again." in response.content.decode()
    assert queued == [[rows["bob"].pk]]
    assert ScoreSync.objects.get(pk=rows["bob"].pk).state == "pending"
    assert ScoreSync.objects.get(pk=rows["cy"].pk).state == "failed"


@pytest.mark.parametrize("value", ["x", "", "-1", "99999999999999999999999"])
def test_a_bad_row_id_changes_nothing(client, instructor, exam, rows, queued, value):
    client.force_login(instructor)
    response = client.post(url(exam), {"sync": value}, follow=True)
    assert response.redirect_chain == [(url(exam), 303)]
    assert "That score could not be found." in response.content.decode()
    assert ScoreSync.objects.filter(state="failed").count() == 2 and queued == []


def test_resend_of_a_sent_row_says_so(client, instructor, exam, rows, queued):
    client.force_login(instructor)
    response = client.post(url(exam), {"sync": rows["ann"].pk}, follow=True)
    assert "That score is already in the LMS gradebook." in response.content.decode()
    assert ScoreSync.objects.get(pk=rows["ann"].pk).state == "sent"


def test_the_resend_needs_the_csrf_token(instructor, exam, rows, queued):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(instructor)
    assert client.post(url(exam)).status_code == 403
    assert ScoreSync.objects.filter(state="failed").count() == 2


def test_anyone_but_the_quizs_instructors_gets_404(client, learner, exam, rows, queued):
    other = CourseRoleFactory(user__username="elsewhere", course=CourseFactory(slug="other")).user
    for user in (learner, other, rows["bob"].learner):
        client.force_login(user)
        assert client.get(url(exam)).status_code == 404
        assert client.post(url(exam)).status_code == 404
    assert ScoreSync.objects.filter(state="failed").count() == 2 and queued == []


def test_staff_may_open_it(client, staff, exam, rows):
    client.force_login(staff)
    assert client.get(url(exam)).status_code == 200


def test_anonymous_is_sent_to_sign_in(client, exam):
    response = client.get(url(exam))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


# ------------------------------------------------------------------- the items page


def test_the_items_page_links_to_it_with_the_unsent_count(client, instructor, exam, rows):
    client.force_login(instructor)
    html = client.get(f"/teach/quizzes/{exam.pk}/items/").content.decode()
    assert f'<a href="{url(exam)}">LMS grades</a>: 3 scores not yet in the LMS gradebook.' in html


def test_the_items_page_has_no_link_without_rows(client, instructor, exam):
    client.force_login(instructor)
    html = client.get(f"/teach/quizzes/{exam.pk}/items/").content.decode()
    assert "lms-grades" not in html


def test_the_link_costs_the_items_page_one_query(client, instructor, exam, rows):
    client.force_login(instructor)
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(f"/teach/quizzes/{exam.pk}/items/").status_code == 200
    lms = [q["sql"] for q in ctx.captured_queries if "lti_scoresync" in q["sql"]]
    assert len(lms) == 1


def test_the_page_reads_a_fixed_number_of_times(client, instructor, exam, rows, context):
    client.force_login(instructor)
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url(exam)).status_code == 200
    few = len(ctx.captured_queries)
    for i in range(5):
        sync(context, exam, UserFactory(username=f"more-{i}"), "failed")
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url(exam)).status_code == 200
    assert len(ctx.captured_queries) == few <= 8
