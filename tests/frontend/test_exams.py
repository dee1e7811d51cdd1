"""Exams: countdown from the server's deadline, graded-but-hidden autosave, the end when
time is up, and results once the policy allows."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from assess.models import Attempt, Response
from assess.policy import SAVES_MESSAGE
from assess.scoring import SAVES_CEILING
from tests.frontend.helpers import assert_no_answer_in, part_of, right_text

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
# Finishing with blank parts asks first (test_exam_confirm.py); these tests mean it.
SUBMIT_ANYWAY = {"confirm": "1"}


def first_question(attempt):
    return attempt.questions.order_by("order").first()


def test_starting_an_exam_opens_its_page_with_the_deadline(login, enrolled, exam):
    client = login(enrolled)
    response = client.post(f"/quizzes/{exam.pk}/start/")
    attempt = Attempt.objects.get()
    assert response["Location"] == f"/attempts/{attempt.pk}/"
    html = client.get(response["Location"]).content.decode()
    assert f'data-deadline="{attempt.deadline.isoformat()}"' in html
    assert attempt.deadline.strftime("%H:%M:%S") + " UTC" in html  # readable without JS
    assert (
        '<script src="/static/frontend/countdown.js"' in html
        and "Save answer" in html
        and "Check answer" not in html
    )
    assert "Finish and submit" in html


def test_autosave_is_graded_but_shows_no_correctness(login, learner, exam_attempt):
    client = login(learner)
    q = first_question(exam_attempt)
    part = part_of(q)
    response = client.post(
        f"/attempts/{exam_attempt.pk}/q/{q.pk}/answer/", {"part-weights": right_text(part)}, **HTMX
    )
    fragment = response.content.decode()
    assert "Saved at" in fragment and "Correct" not in fragment
    stored = Response.objects.get()
    assert stored.correct is True and stored.idempotency_key.startswith("web-")
    page = client.get(f"/attempts/{exam_attempt.pk}/").content.decode()
    assert "Correct" not in page and "Not correct" not in page and "Worked solution" not in page
    assert_no_answer_in(page, q, typed=True)


def test_autosave_reports_an_unreadable_answer_without_storing_it(login, learner, exam_attempt):
    client = login(learner)
    q = first_question(exam_attempt)
    fragment = client.post(
        f"/attempts/{exam_attempt.pk}/q/{q.pk}/answer/", {"part-weights": "lots"}, **HTMX
    ).content.decode()
    assert "not saved" in fragment
    assert not Response.objects.exists()


def test_time_up_closes_the_attempt_and_keeps_the_saved_answer(login, learner, exam_attempt):
    client = login(learner)
    q = first_question(exam_attempt)
    client.post(
        f"/attempts/{exam_attempt.pk}/q/{q.pk}/answer/", {"part-weights": right_text(part_of(q))}
    )
    Attempt.objects.filter(pk=exam_attempt.pk).update(
        deadline=timezone.now() - timedelta(seconds=1)
    )
    html = client.get(f"/attempts/{exam_attempt.pk}/").content.decode()
    assert "Time is up: your saved answers were submitted." in html
    attempt = Attempt.objects.get(pk=exam_attempt.pk)
    assert attempt.status == Attempt.Status.EXPIRED and attempt.score == 0.5
    assert "Score: 1 of 2 points (50%)" in html and "Worked solution" in html  # after_attempt


def test_an_answer_after_the_deadline_is_refused_and_sent_to_the_end(login, learner, exam_attempt):
    client = login(learner)
    q = first_question(exam_attempt)
    Attempt.objects.filter(pk=exam_attempt.pk).update(
        deadline=timezone.now() - timedelta(seconds=1)
    )
    url = f"/attempts/{exam_attempt.pk}/q/{q.pk}/answer/"
    response = client.post(url, {"part-weights": "1 GB"}, **HTMX)
    assert response["HX-Redirect"] == f"/attempts/{exam_attempt.pk}/"
    plain = client.post(url, {"part-weights": "1 GB"})
    assert plain["Location"] == f"/attempts/{exam_attempt.pk}/"
    assert not Response.objects.exists()


def test_finish_shows_results_when_the_policy_allows(login, learner, exam_attempt):
    client = login(learner)
    response = client.post(f"/attempts/{exam_attempt.pk}/finish/", SUBMIT_ANYWAY)
    html = client.get(response["Location"]).content.decode()
    assert "Submitted at" in html and "Score: 0 of 2 points (0%)" in html and "not passed" in html
    again = client.post(f"/attempts/{exam_attempt.pk}/finish/", follow=True).content.decode()
    assert "already finished" in again


def test_after_close_results_stay_hidden_until_the_quiz_closes(login, enrolled, course):
    from tests.factories import QuizFactory

    quiz = QuizFactory(
        mode="exam",
        course=course,
        feedback="after_close",
        closes_at=timezone.now() + timedelta(days=1),
        slots=[["weights-memory"]],
    )
    client = login(enrolled)
    attempt_url = client.post(f"/quizzes/{quiz.pk}/start/")["Location"]
    html = client.post(attempt_url + "finish/", SUBMIT_ANYWAY, follow=True).content.decode()
    assert "Results appear when the quiz closes" in html and "Score:" not in html


def test_used_up_attempts_are_explained(login, enrolled, course):
    from tests.factories import QuizFactory

    quiz = QuizFactory(mode="exam", course=course, attempts_allowed=1, slots=[["weights-memory"]])
    client = login(enrolled)
    client.post(client.post(f"/quizzes/{quiz.pk}/start/")["Location"] + "finish/", SUBMIT_ANYWAY)
    html = client.post(f"/quizzes/{quiz.pk}/start/", follow=True).content.decode()
    assert "used all 1 attempt" in html


def test_quiz_list_shows_the_time_limit_and_a_labelled_start(login, enrolled, exam):
    html = login(enrolled).get("/quizzes/").content.decode()
    assert "Sizing exam" in html and "10 min" in html
    assert 'aria-label="Start Sizing exam"' in html


def test_an_autosave_says_when_the_question_was_last_saved_without_reading_its_view(
    login, learner, exam_attempt
):
    """The status is all an autosave returns: the time of the question's latest save (an
    unchanged answer keeps the earlier one), known from the submit's own read of the
    question's answers: no query of its own, nor the question's whole view (its
    reveals, hints and policy: what a paper's page reads)."""
    client = login(learner)
    q = first_question(exam_attempt)
    url = f"/attempts/{exam_attempt.pk}/q/{q.pk}/answer/"
    client.post(url, {"part-weights": "12 GB"}, **HTMX)
    first = Response.objects.get(question=q)
    Response.objects.filter(pk=first.pk).update(created_at=first.created_at - timedelta(minutes=5))
    earlier = (first.created_at - timedelta(minutes=5)).strftime("%H:%M:%S")
    with CaptureQueriesContext(connection) as queries:
        fragment = client.post(url, {"part-weights": "12 GB"}, **HTMX).content.decode()
    assert f"Saved at {earlier} UTC" in fragment  # unchanged: nothing new stored
    assert not [x for x in queries.captured_queries if "assess_reveal" in x["sql"]]
    assert not [x for x in queries.captured_queries if "MAX(" in x["sql"].upper()]
    fragment = client.post(url, {"part-weights": "13 GB"}, **HTMX).content.decode()
    latest = Response.objects.filter(question=q).latest("created_at").created_at
    assert f"Saved at {latest.strftime('%H:%M:%S')} UTC" in fragment
    assert "Correct" not in fragment and "Not correct" not in fragment


def test_without_javascript_save_posts_and_the_page_says_saved(login, learner, exam_attempt):
    client = login(learner)
    q = first_question(exam_attempt)
    response = client.post(
        f"/attempts/{exam_attempt.pk}/q/{q.pk}/answer/", {"part-weights": "12 GB"}
    )
    assert response["Location"] == f"/attempts/{exam_attempt.pk}/#q-{q.pk}"
    html = client.get(response["Location"]).content.decode()
    assert "Saved at" in html and 'value="12 GB"' in html and "Not correct" not in html


def test_changing_an_exam_answer_back_counts_and_the_last_one_stands(login, learner, exam_attempt):
    """Deferred feedback: no tries to spend. The same text sent twice (double click,
    retried autosave) is one response; changing back to an earlier text (A, B, A) is a
    new one, and it is the last saved answer that counts."""
    client = login(learner)
    q = first_question(exam_attempt)
    part = part_of(q)
    url = f"/attempts/{exam_attempt.pk}/q/{q.pk}/answer/"
    right, wrong = right_text(part), "12 GB"
    for text in (right, right, wrong, right):
        client.post(url, {"part-weights": text}, **HTMX)
    assert list(Response.objects.values_list("raw", flat=True)) == [right, wrong, right]
    url = f"/attempts/{exam_attempt.pk}/finish/"
    html = client.post(url, SUBMIT_ANYWAY, follow=True).content.decode()
    assert "Score: 1 of 2 points (50%)" in html  # the last saved (right) counts; q2 empty


def test_the_quiz_list_and_start_need_enrolment(login, learner, exam):
    """A quiz of a course the learner is not enrolled in is not listed, and starting it
    is a 404, as if it did not exist."""
    client = login(learner)
    assert "Sizing exam" not in client.get("/quizzes/").content.decode()
    assert client.post(f"/quizzes/{exam.pk}/start/").status_code == 404
    assert not Attempt.objects.exists()


def test_a_part_at_the_saves_ceiling_shows_why_and_keeps_its_last_save(
    login, learner, exam_attempt
):
    """Past SAVES_CEILING saves a part takes no more (assess.scoring): the page says so
    where the box was, a further save is refused with the same words, nothing stored is
    lost."""
    client = login(learner)
    q = first_question(exam_attempt)
    part = part_of(q)
    url = f"/attempts/{exam_attempt.pk}/q/{q.pk}/answer/"
    client.post(url, {"part-weights": right_text(part)}, **HTMX)
    first = Response.objects.get()
    copies = []
    for k in range(SAVES_CEILING - 1):
        first.pk, first.idempotency_key = None, f"copy-{k}"
        copies.append(
            Response(
                **{f.attname: getattr(first, f.attname) for f in Response._meta.concrete_fields}
            )
        )
    Response.objects.bulk_create(copies)
    page = client.get(f"/attempts/{exam_attempt.pk}/").content.decode()
    assert SAVES_MESSAGE in page
    refused = client.post(url, {"part-weights": "1 GB"}, **HTMX)  # back to the page, told why
    shown = client.get(refused["HX-Redirect"]).content.decode()
    assert shown.count(SAVES_MESSAGE) == 2  # the flash and the part's own line
    assert Response.objects.filter(question=q).count() == SAVES_CEILING
