"""Object permissions: 404 for any object the user may not see, consistently."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from assess.models import Quiz, Response
from tests.assess.helpers import answer, answer_all, error_attrs, error_of, parts_of, rows_of
from tests.factories import (
    PASSWORD,
    CourseFactory,
    CourseRoleFactory,
    EnrolmentFactory,
    QuizFactory,
)

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.assess.urls")]


@pytest.fixture
def course_quiz(course, learner, other_learner):
    """A homework of the course both learners are enrolled in (the gate on enrolment
    itself is tested in test_enrolment.py)."""
    for user in (learner, other_learner):
        EnrolmentFactory(user=user, course=course)
    return QuizFactory(mode=Quiz.Mode.HOMEWORK, course=course, slots=[["gb-gib"]])


@pytest.fixture
def learners_attempt(api, course_quiz) -> dict:
    body = api.post(f"/api/quizzes/{course_quiz.pk}/attempts/").json()
    answer_all(api, body["id"], [body["questions"][0]["id"]])
    return body


def test_another_learner_cannot_read_or_write_my_attempt(
    api, client_for, other_learner, learners_attempt
):
    other = client_for(other_learner)
    aid = learners_attempt["id"]
    qid = learners_attempt["questions"][0]["id"]
    assert other.get(f"/api/attempts/{aid}/").status_code == 404
    assert other.post(f"/api/attempts/{aid}/finish/").status_code == 404
    assert other.post(f"/api/attempts/{aid}/questions/{qid}/new-variant/").status_code == 404
    r = answer(other, aid, qid, parts_of(qid)[0], key="theirs")
    assert r.status_code == 404
    assert Response.objects.filter(idempotency_key="theirs").count() == 0
    # A body that does not validate still gets the 404: it must not tell them (400)
    # that the attempt exists.
    r = other.post(f"/api/attempts/{aid}/responses/", {"question": qid}, format="json")
    assert r.status_code == 404
    r = api.post(f"/api/attempts/{aid}/responses/", {"question": qid}, format="json")
    assert r.status_code == 400  # the owner is told what is wrong with it


def test_a_learner_removed_from_the_course_reads_but_cannot_continue(api, learner, course_quiz):
    """Removal ends the right to take the course's quizzes, an attempt already open
    included: the learner still reads what they did, and nothing more is stored."""
    body = api.post(f"/api/quizzes/{course_quiz.pk}/attempts/").json()
    aid, qid = body["id"], body["questions"][0]["id"]
    learner.enrolments.all().delete()
    assert api.get(f"/api/attempts/{aid}/").status_code == 200
    r = answer(api, aid, qid, parts_of(qid)[0], key="after-removal")
    assert r.status_code == 404
    assert Response.objects.filter(idempotency_key="after-removal").count() == 0
    assert api.post(f"/api/attempts/{aid}/finish/").status_code == 404
    assert api.get(f"/api/attempts/{aid}/").json()["status"] == "open"


def test_question_of_another_attempt_is_404(api, client_for, other_learner, course_quiz):
    mine = api.post(f"/api/quizzes/{course_quiz.pk}/attempts/").json()
    other = client_for(other_learner)
    theirs = other.post(f"/api/quizzes/{course_quiz.pk}/attempts/").json()
    their_q = theirs["questions"][0]["id"]
    r = answer(api, mine["id"], their_q, parts_of(their_q)[0])
    assert r.status_code == 404


def test_instructor_sees_attempts_and_items_of_their_course(
    client_for, instructor, learners_attempt, course_quiz
):
    teacher = client_for(instructor)
    review = teacher.get(f"/api/attempts/{learners_attempt['id']}/")
    assert review.status_code == 200
    assert review.json()["questions"][0]["parts"][0]["answer"] is not None
    listed = rows_of(teacher.get(f"/api/quizzes/{course_quiz.pk}/attempts/"))
    assert [a["learner"] for a in listed] == ["learner"]
    assert teacher.get(f"/api/quizzes/{course_quiz.pk}/items/").status_code == 200
    # Seeing is not writing: the learner's attempt is not the instructor's to answer.
    assert teacher.post(f"/api/attempts/{learners_attempt['id']}/finish/").status_code == 404


def test_instructor_of_another_course_gets_404(client_for, learners_attempt, course_quiz):
    stranger = client_for(CourseRoleFactory(course=CourseFactory()).user)
    assert stranger.get(f"/api/attempts/{learners_attempt['id']}/").status_code == 404
    assert stranger.get(f"/api/quizzes/{course_quiz.pk}/items/").status_code == 404
    # Not enrolled in the course and not its instructor: the quiz itself is not there.
    assert stranger.get(f"/api/quizzes/{course_quiz.pk}/attempts/").status_code == 404


def test_learner_cannot_see_item_analysis(api, course_quiz):
    assert api.get(f"/api/quizzes/{course_quiz.pk}/items/").status_code == 404


def test_learner_lists_only_own_attempts(api, client_for, other_learner, course_quiz):
    api.post(f"/api/quizzes/{course_quiz.pk}/attempts/")
    client_for(other_learner).post(f"/api/quizzes/{course_quiz.pk}/attempts/")
    assert [a["learner"] for a in rows_of(api.get(f"/api/quizzes/{course_quiz.pk}/attempts/"))] == [
        "learner"
    ]


def test_staff_sees_everything(client_for, staff, learners_attempt, course_quiz):
    admin = client_for(staff)
    assert admin.get(f"/api/attempts/{learners_attempt['id']}/").status_code == 200
    assert admin.get(f"/api/quizzes/{course_quiz.pk}/items/").status_code == 200


def test_anonymous_is_refused_with_401():
    client = APIClient()
    for r in (client.get("/api/quizzes/"), client.get("/api/me/mastery/")):
        assert error_of(r, 401)["code"] == "not_authenticated"
        assert r["WWW-Authenticate"] == "Token"


def test_token_auth(learner):
    client = APIClient()
    bad = client.post("/api/auth/token/", {"username": "learner", "password": "nope"})
    error = error_of(bad, 400)
    assert (error["code"], error["attr"]) == ("authorization", "non_field_errors")
    r = client.post(
        "/api/auth/token/", {"username": "learner", "password": PASSWORD}, format="json"
    )
    assert r.status_code == 200
    token = r.json()["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/quizzes/").status_code == 200
    assert client.get("/api/me/mastery/").json() == {"skills": [], "lessons": []}


def test_session_auth(client, learner):
    client.force_login(learner)
    assert client.get("/api/quizzes/").status_code == 200


# ------------------------------------------------------------------------ quiz creation


def quiz_body(**overrides) -> dict:
    body = {
        "title": "Memory math",
        "mode": "exam",
        "slots": [
            {"templates": ["weights-memory", "gb-gib"], "points": 2},
            {"templates": ["gb-gib"]},
        ],
        "time_limit_minutes": 30,
        "attempts_allowed": 1,
        "pass_mark": 0.7,
    }
    return {**body, **overrides}


def test_instructor_creates_a_quiz_for_their_course(client_for, instructor, course):
    r = client_for(instructor).post("/api/quizzes/", quiz_body(course=course.slug), format="json")
    assert r.status_code == 201, r.content
    body = r.json()
    assert body["course"] == course.slug and body["feedback"] == "after_attempt"
    assert body["time_limit_minutes"] == 30
    assert [(s["order"], s["points"]) for s in body["slots"]] == [(1, 2), (2, 1)]


def test_learner_cannot_create_a_quiz(api, course):
    for body in (quiz_body(course=course.slug), quiz_body()):
        r = api.post("/api/quizzes/", body, format="json")
        assert error_of(r, 403)["code"] == "permission_denied"
    assert not Quiz.objects.exists()


def test_an_instructor_must_name_a_course(client_for, instructor, course):
    r = client_for(instructor).post("/api/quizzes/", quiz_body(), format="json")
    assert "outside a course" in error_of(r, 403)["detail"]
    r = client_for(instructor).post("/api/quizzes/", quiz_body(course=None), format="json")
    assert error_of(r, 403)["code"] == "permission_denied"
    assert not Quiz.objects.exists()


def test_instructor_of_another_course_cannot_create(client_for, course):
    stranger = client_for(CourseRoleFactory(course=CourseFactory()).user)
    r = stranger.post("/api/quizzes/", quiz_body(course=course.slug), format="json")
    assert "instructors of this course" in error_of(r, 403)["detail"]


def test_quiz_validation(client_for, staff):
    admin = client_for(staff)
    r = admin.post(
        "/api/quizzes/", quiz_body(slots=[{"templates": ["no-such-template"]}]), format="json"
    )
    assert "no-such-template" in error_of(r, 400, attr="slots")["detail"]
    r = admin.post("/api/quizzes/", quiz_body(feedback="immediately"), format="json")
    assert error_attrs(r) == {"feedback"}
    r = admin.post("/api/quizzes/", quiz_body(feedback="after_close"), format="json")
    assert error_attrs(r) == {"feedback"}
    r = admin.post("/api/quizzes/", quiz_body(course="no-such-course"), format="json")
    assert error_attrs(r) == {"course"}
    assert admin.post("/api/quizzes/", quiz_body(), format="json").status_code == 201
