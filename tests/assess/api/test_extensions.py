"""/api/quizzes/{id}/extensions/: instructors give one learner extra time or a later
close; others are refused after the close (409) and after_close grades wait for the
latest close of anyone."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from assess.models import Extension, Quiz
from tests.assess.helpers import answer, error_attrs, error_of, parts_of, rows_of
from tests.factories import (
    CourseFactory,
    CourseRoleFactory,
    EnrolmentFactory,
    QuizFactory,
    UserFactory,
)

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.assess.urls")]

HOUR = timedelta(hours=1)


@pytest.fixture
def quiz(course, learner, other_learner):
    for user in (learner, other_learner):
        EnrolmentFactory(user=user, course=course)
    return QuizFactory(
        mode=Quiz.Mode.EXAM,
        course=course,
        slots=[["gb-gib"]],
        time_limit=timedelta(minutes=30),
        opens_at=timezone.now() - 2 * HOUR,
        closes_at=timezone.now() + HOUR,
        feedback=Quiz.Feedback.AFTER_CLOSE,
    )


@pytest.fixture
def teacher(client_for, instructor):
    return client_for(instructor)


def url(quiz, learner=None) -> str:
    base = f"/api/quizzes/{quiz.pk}/extensions/"
    return base if learner is None else f"{base}{learner.pk}/"


def test_instructor_grants_lists_changes_and_removes(teacher, quiz, learner):
    r = teacher.put(url(quiz, learner), {"extra_time_minutes": 15}, format="json")
    assert r.status_code == 200, r.content
    body = r.json()
    assert (body["learner"], body["username"]) == (learner.pk, "learner")
    assert (body["extra_time_minutes"], body["closes_at"]) == (15, None)
    assert body["granted_by"] == "teacher"

    later = (quiz.closes_at + HOUR).isoformat().replace("+00:00", "Z")
    r = teacher.put(url(quiz, learner), {"closes_at": later}, format="json")
    assert r.status_code == 200, r.content
    assert r.json()["extra_time_minutes"] is None  # the body is the whole extension
    [row] = rows_of(teacher.get(url(quiz)))
    assert row["closes_at"] == later and row["username"] == "learner"

    assert teacher.delete(url(quiz, learner)).status_code == 204
    assert rows_of(teacher.get(url(quiz))) == []
    assert teacher.delete(url(quiz, learner)).status_code == 404


def test_extra_time_shows_in_the_deadline_of_an_open_attempt(api, teacher, quiz, learner):
    started = api.post(f"/api/quizzes/{quiz.pk}/attempts/").json()
    teacher.put(url(quiz, learner), {"extra_time_minutes": 20}, format="json")
    attempt = api.get(f"/api/attempts/{started['id']}/").json()
    assert attempt["deadline"] != started["deadline"]
    assert (
        timezone.datetime.fromisoformat(attempt["deadline"])
        - timezone.datetime.fromisoformat(started["deadline"])
    ) == timedelta(minutes=20)


def test_after_the_close_only_the_extended_learner_starts_and_answers(
    api, client_for, teacher, quiz, learner, other_learner
):
    later = quiz.closes_at + 2 * HOUR
    r = teacher.put(url(quiz, learner), {"closes_at": later.isoformat()}, format="json")
    assert r.status_code == 200, r.content
    Quiz.objects.filter(pk=quiz.pk).update(
        closes_at=timezone.now() - timedelta(seconds=1), time_limit=None
    )
    started = api.post(f"/api/quizzes/{quiz.pk}/attempts/")
    assert started.status_code == 201, started.content
    qid = started.json()["questions"][0]["id"]
    assert answer(api, started.json()["id"], qid, parts_of(qid)[0]).status_code == 201
    other = client_for(other_learner).post(f"/api/quizzes/{quiz.pk}/attempts/")
    assert "closed" in error_of(other, 409)["detail"]


def test_after_close_grades_wait_for_the_latest_extended_close(
    api, client_for, teacher, quiz, learner, other_learner
):
    later = quiz.closes_at + 2 * HOUR
    teacher.put(url(quiz, learner), {"closes_at": later.isoformat()}, format="json")
    ids = {}
    for user, client in ((learner, api), (other_learner, client_for(other_learner))):
        body = client.post(f"/api/quizzes/{quiz.pk}/attempts/").json()
        qid = body["questions"][0]["id"]
        assert answer(client, body["id"], qid, parts_of(qid)[0]).status_code == 201
        assert client.post(f"/api/attempts/{body['id']}/finish/").status_code == 200
        ids[user.pk] = (client, body["id"])
    # The quiz's own close passes; the extension's has not.
    Quiz.objects.filter(pk=quiz.pk).update(closes_at=timezone.now() - timedelta(seconds=1))
    for client, aid in ids.values():
        review = client.get(f"/api/attempts/{aid}/").json()
        assert review["score"] is None
        assert review["questions"][0]["parts"][0]["answer"] is None
    # The latest close passes too (as time would): grades show for everyone.
    Quiz.objects.filter(pk=quiz.pk).update(extended_until=timezone.now() - timedelta(seconds=1))
    for client, aid in ids.values():
        review = client.get(f"/api/attempts/{aid}/").json()
        assert review["score"] == 1.0
        assert review["questions"][0]["parts"][0]["answer"] is not None


# ------------------------------------------------------------------------- who may


def test_a_learner_cannot_grant_or_list(api, quiz, learner):
    """Extensions are the quiz's instructors' business: to a learner, even one who may
    take the quiz, they are not there (404), as item analysis is not."""
    assert api.get(url(quiz)).status_code == 404
    r = api.put(url(quiz, learner), {"extra_time_minutes": 600}, format="json")
    assert error_of(r, 404)["code"] == "not_found"
    assert api.delete(url(quiz, learner)).status_code == 404
    assert not Extension.objects.exists()


def test_an_instructor_of_another_course_gets_404(client_for, teacher, quiz, learner):
    teacher.put(url(quiz, learner), {"extra_time_minutes": 15}, format="json")
    stranger = client_for(CourseRoleFactory(course=CourseFactory()).user)
    assert stranger.get(url(quiz)).status_code == 404
    r = stranger.put(url(quiz, learner), {"extra_time_minutes": 60}, format="json")
    assert r.status_code == 404
    assert stranger.delete(url(quiz, learner)).status_code == 404
    assert Extension.objects.get().extra_time == timedelta(minutes=15)


def test_staff_manage_any_quizs_extensions(client_for, staff, quiz, learner):
    r = client_for(staff).put(url(quiz, learner), {"extra_time_minutes": 5}, format="json")
    assert r.status_code == 200 and r.json()["granted_by"] == "admin"


# ----------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("body", "attr"),
    [
        ({"extra_time_minutes": -5}, "extra_time_minutes"),
        ({"extra_time_minutes": 0}, "extra_time_minutes"),
        ({"extra_time_minutes": 10081}, "extra_time_minutes"),
        ({}, "extra_time_minutes"),
        ({"extra_time_minutes": None, "closes_at": None}, "extra_time_minutes"),
        ({"closes_at": "before"}, "closes_at"),
        ({"closes_at": "not a date"}, "closes_at"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(teacher, quiz, learner, body, attr):
    if body.get("closes_at") == "before":
        body = {"closes_at": (quiz.closes_at - timedelta(minutes=1)).isoformat()}
    r = teacher.put(url(quiz, learner), body, format="json")
    assert error_attrs(r) == {attr}, r.content
    assert not Extension.objects.exists()


def test_an_unknown_or_unenrolled_learner_is_a_400_on_learner(teacher, quiz):
    body = {"extra_time_minutes": 10}
    r = teacher.put(f"/api/quizzes/{quiz.pk}/extensions/987654/", body, format="json")
    assert "987654" in error_of(r, 400, attr="learner")["detail"]
    outsider = UserFactory()
    r = teacher.put(url(quiz, outsider), body, format="json")
    assert "not enrolled" in error_of(r, 400, attr="learner")["detail"]
    assert not Extension.objects.exists()


# -------------------------------------------------------------------------- budgets

LIST_BUDGET = 6  # session/gate: the quiz, the instructor check, the count, the page


def test_the_list_costs_the_same_for_2_and_12_extensions(teacher, quiz, course):
    counts = []
    for n in (2, 12):
        Extension.objects.all().delete()
        for _ in range(n):
            user = UserFactory()
            EnrolmentFactory(user=user, course=course)
            Extension.objects.create(quiz=quiz, learner=user, extra_time=HOUR, granted_by=None)
        with CaptureQueriesContext(connection) as ctx:
            r = teacher.get(url(quiz))
        assert r.status_code == 200 and r.json()["count"] == n
        counts.append(len(ctx.captured_queries))
    assert counts[0] == counts[1] <= LIST_BUDGET


def test_a_learner_reads_their_own_close_on_the_quiz(
    api, client_for, teacher, quiz, learner, other_learner
):
    later = quiz.closes_at + 2 * HOUR
    teacher.put(url(quiz, learner), {"closes_at": later.isoformat()}, format="json")
    mine = api.get(f"/api/quizzes/{quiz.pk}/").json()
    theirs = client_for(other_learner).get(f"/api/quizzes/{quiz.pk}/").json()
    assert timezone.datetime.fromisoformat(mine["closes_at_for_you"]) == later
    assert theirs["closes_at_for_you"] == theirs["closes_at"]
    # the list says the same (one query for the reader's extensions, not one per quiz)
    (listed,) = [q for q in api.get("/api/quizzes/").json()["results"] if q["id"] == quiz.pk]
    assert listed["closes_at_for_you"] == mine["closes_at_for_you"]


def test_nobody_extends_themselves(teacher, instructor, course, quiz):
    """An instructor enrolled in their own course: a PUT or DELETE on their own
    extension is a 403 (documented) before the body is read; a colleague may."""
    from tests.openapi import assert_documented

    EnrolmentFactory(user=instructor, course=course)
    path = "/api/quizzes/{id}/extensions/{learner_id}/"
    for body in ({"extra_time_minutes": 15}, {}):
        r = teacher.put(url(quiz, instructor), body, format="json")
        assert "for yourself" in error_of(r, 403)["detail"]
        assert_documented(r, "put", path)
    colleague = CourseRoleFactory(course=course).user
    Extension.objects.create(quiz=quiz, learner=instructor, extra_time=HOUR, granted_by=colleague)
    r = teacher.delete(url(quiz, instructor))
    assert error_of(r, 403)
    assert_documented(r, "delete", path)
    assert Extension.objects.filter(learner=instructor).exists()
