"""The quiz lifecycle in the REST API: `status` on every quiz (published by default for
quizzes the API creates), drafts invisible to learners, and publish, unpublish and close
with every status they answer, each as the schema documents it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from assess.models import Attempt, Quiz
from tests.assess.helpers import error_of, rows_of
from tests.factories import CourseRoleFactory, EnrolmentFactory, QuizFactory
from tests.openapi import assert_documented

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.assess.urls")]

BODY = {"title": "Week 1", "mode": "homework", "slots": [{"templates": ["gb-gib"]}]}


@pytest.fixture
def enrolled(learner, course):
    EnrolmentFactory(user=learner, course=course)
    return learner


@pytest.fixture
def teacher(client_for, instructor):
    return client_for(instructor)


@pytest.fixture
def draft(course):
    return QuizFactory(course=course, status=Quiz.Status.DRAFT, slots=[["gb-gib"]])


def action(client, quiz, name: str):
    path = f"/api/quizzes/{quiz.pk}/{name}/"
    response = client.post(path)
    assert_documented(response, "post", f"/api/quizzes/{{id}}/{name}/")
    return response


# ------------------------------------------------------------------------ the field


def test_a_quiz_created_through_the_api_is_published_unless_sent_as_a_draft(teacher, course):
    created = teacher.post("/api/quizzes/", {**BODY, "course": course.slug}, format="json")
    assert assert_documented(created, "post", "/api/quizzes/")["status"] == "published"
    drafted = teacher.post(
        "/api/quizzes/", {**BODY, "course": course.slug, "status": "draft"}, format="json"
    )
    assert drafted.status_code == 201 and drafted.json()["status"] == "draft"
    refused = teacher.post(
        "/api/quizzes/", {**BODY, "course": course.slug, "status": "closed"}, format="json"
    )
    assert error_of(refused, 400, "status")["code"] == "invalid_choice"


def test_status_reads_closed_once_the_close_has_passed(teacher, course):
    quiz = QuizFactory(course=course, closes_at=timezone.now() - timedelta(minutes=1))
    body = assert_documented(teacher.get(f"/api/quizzes/{quiz.pk}/"), "get", "/api/quizzes/{id}/")
    assert body["status"] == "closed"


def test_a_learner_never_sees_or_starts_a_draft(api, enrolled, teacher, draft):
    published = QuizFactory(course=draft.course)
    assert [q["id"] for q in rows_of(api.get("/api/quizzes/"))] == [published.pk]
    assert error_of(api.get(f"/api/quizzes/{draft.pk}/"), 404)["code"] == "not_found"
    started = api.post(f"/api/quizzes/{draft.pk}/attempts/")
    assert error_of(started, 404)["code"] == "not_found"
    assert error_of(api.get(f"/api/quizzes/{draft.pk}/attempts/"), 404)
    # Its instructor lists and reads it, marked a draft, and cannot start it either.
    listed = {q["id"]: q["status"] for q in rows_of(teacher.get("/api/quizzes/"))}
    assert listed == {draft.pk: "draft", published.pk: "published"}
    mine = teacher.post(f"/api/quizzes/{draft.pk}/attempts/")
    assert "draft" in error_of(mine, 409)["detail"]
    assert_documented(mine, "post", "/api/quizzes/{id}/attempts/")
    assert not Attempt.objects.exists()


# ----------------------------------------------------------------------- the actions


def test_publish_then_unpublish(api, enrolled, teacher, draft):
    published = action(teacher, draft, "publish")
    assert published.status_code == 200 and published.json()["status"] == "published"
    assert api.get(f"/api/quizzes/{draft.pk}/").status_code == 200
    assert action(teacher, draft, "publish").json()["status"] == "published"  # harmless
    unpublished = action(teacher, draft, "unpublish")
    assert unpublished.status_code == 200 and unpublished.json()["status"] == "draft"
    assert api.get(f"/api/quizzes/{draft.pk}/").status_code == 404
    assert action(teacher, draft, "unpublish").json()["status"] == "draft"


def test_unpublish_is_409_once_an_attempt_exists(api, enrolled, teacher, draft):
    action(teacher, draft, "publish")
    assert api.post(f"/api/quizzes/{draft.pk}/attempts/").status_code == 201
    refused = action(teacher, draft, "unpublish")
    error = error_of(refused, 409)
    assert error["code"] == "conflict" and "Close it instead" in error["detail"]
    assert Quiz.objects.get(pk=draft.pk).status == "published"


def test_publish_is_409_past_the_close(teacher, course):
    quiz = QuizFactory(
        course=course, status=Quiz.Status.DRAFT, closes_at=timezone.now() - timedelta(hours=1)
    )
    assert "later close" in error_of(action(teacher, quiz, "publish"), 409)["detail"]


def test_close_ends_the_quiz_for_learners(api, enrolled, teacher, course):
    quiz = QuizFactory(course=course)
    attempt = api.post(f"/api/quizzes/{quiz.pk}/attempts/").json()
    closed = action(teacher, quiz, "close")
    assert closed.status_code == 200 and closed.json()["status"] == "closed"
    assert Attempt.objects.get(pk=attempt["id"]).status == "expired"
    assert error_of(api.post(f"/api/quizzes/{quiz.pk}/attempts/"), 409)["code"] == "conflict"
    assert error_of(action(teacher, quiz, "unpublish"), 409)
    # The learner still reads the quiz's attempts (their grade stays theirs).
    assert rows_of(api.get(f"/api/quizzes/{quiz.pk}/attempts/"))


def test_close_is_409_for_a_draft(teacher, draft):
    assert "draft" in error_of(action(teacher, draft, "close"), 409)["detail"]


@pytest.mark.parametrize("name", ["publish", "unpublish", "close"])
def test_a_learner_and_another_courses_instructor_get_404(api, client_for, draft, name):
    assert error_of(action(api, draft, name), 404)["code"] == "not_found"
    stranger = CourseRoleFactory().user  # teaches another course
    assert error_of(action(client_for(stranger), draft, name), 404)["code"] == "not_found"


@pytest.mark.parametrize("name", ["publish", "unpublish", "close"])
def test_an_instructor_scoped_to_an_lms_course_gets_403(
    client_for, course, draft, name, lms_context
):
    scoped = CourseRoleFactory(course=course, lti_context=lms_context).user
    error = error_of(action(client_for(scoped), draft, name), 403)
    assert error["code"] == "permission_denied" and "LMS course" in error["detail"]


def test_lesson_practice_is_409(teacher, course):
    practice = QuizFactory(course=course, adaptive=True)
    assert "Lesson practice" in error_of(action(teacher, practice, "unpublish"), 409)["detail"]


def test_the_actions_need_credentials(db, draft):
    from rest_framework.test import APIClient

    assert error_of(action(APIClient(), draft, "publish"), 401)["code"] == "not_authenticated"
