"""Enrolment: the endpoints, and the gates it decides.

A course's quizzes are listed and startable only by its enrolled learners, its
instructors and staff (404 for anyone else); quizzes with no course are open to every
signed-in user. Learners enrol themselves where the course allows it; instructors and
staff enrol and remove them always. Lesson practice enrols on first use.
"""

from __future__ import annotations

import pytest

from assess.models import Attempt, Enrolment, Quiz
from tests.assess.helpers import error_attrs, error_of, rows_of
from tests.factories import (
    CourseFactory,
    CourseRoleFactory,
    EnrolmentFactory,
    LessonFactory,
    QuizFactory,
    UserFactory,
)

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.assess.urls")]


@pytest.fixture
def quiz(course) -> Quiz:
    return QuizFactory(mode=Quiz.Mode.HOMEWORK, course=course, slots=[["gb-gib"]])


@pytest.fixture
def closed_course(db):
    return CourseFactory(slug="invite-only", self_enrol=False)


def listed(client) -> set[int]:
    return {q["id"] for q in rows_of(client.get("/api/quizzes/"))}


def enrolled(user, course) -> bool:
    return Enrolment.objects.filter(user=user, course=course).exists()


# ----------------------------------------------------------------------- self-enrolment


def test_enrol_yourself(api, learner, course):
    r = api.post(f"/api/courses/{course.slug}/enrol/")
    assert r.status_code == 201, r.content
    body = r.json()
    assert (body["course"], body["username"], body["source"]) == (course.slug, "learner", "self")
    again = api.post(f"/api/courses/{course.slug}/enrol/")
    assert again.status_code == 200
    assert again.json() == body
    assert Enrolment.objects.filter(user=learner).count() == 1


def test_self_enrolment_refused_where_the_course_does_not_allow_it(api, learner, closed_course):
    r = api.post(f"/api/courses/{closed_course.slug}/enrol/")
    error = error_of(r, 403)
    assert error["code"] == "permission_denied" and "instructors" in error["detail"]
    assert not enrolled(learner, closed_course)


def test_already_enrolled_in_a_closed_course_is_200(api, learner, closed_course):
    EnrolmentFactory(user=learner, course=closed_course, source=Enrolment.Source.INSTRUCTOR)
    r = api.post(f"/api/courses/{closed_course.slug}/enrol/")
    assert r.status_code == 200 and r.json()["source"] == "instructor"


def test_enrol_in_an_unknown_course_is_404(api):
    assert error_of(api.post("/api/courses/nope/enrol/"), 404)["code"] == "not_found"
    assert error_of(api.get("/api/courses/nope/enrolments/"), 404)["code"] == "not_found"


# ---------------------------------------------------------------- instructors and staff


def test_instructor_lists_adds_and_removes_learners(client_for, instructor, learner, course):
    teacher = client_for(instructor)
    url = f"/api/courses/{course.slug}/enrolments/"
    assert rows_of(teacher.get(url)) == []
    r = teacher.post(url, {"username": "learner"}, format="json")
    assert r.status_code == 201, r.content
    assert (r.json()["username"], r.json()["source"]) == ("learner", "instructor")
    again = teacher.post(url, {"username": "learner"}, format="json")
    assert again.status_code == 200
    EnrolmentFactory(user=UserFactory(username="zed"), course=course)
    EnrolmentFactory(user=UserFactory(username="elsewhere"), course=CourseFactory())
    assert [e["username"] for e in rows_of(teacher.get(url))] == ["learner", "zed"]

    assert teacher.delete(f"{url}learner/").status_code == 204
    assert not enrolled(learner, course)
    assert teacher.delete(f"{url}learner/").status_code == 404  # not enrolled any more
    assert teacher.delete(f"{url}nobody/").status_code == 404
    assert [e["username"] for e in rows_of(teacher.get(url))] == ["zed"]


def test_instructor_enrols_into_a_closed_course(client_for, learner, closed_course):
    teacher = client_for(CourseRoleFactory(course=closed_course).user)
    url = f"/api/courses/{closed_course.slug}/enrolments/"
    assert teacher.post(url, {"username": "learner"}, format="json").status_code == 201
    assert enrolled(learner, closed_course)


def test_adding_an_unknown_user_is_400(client_for, instructor, course):
    url = f"/api/courses/{course.slug}/enrolments/"
    r = client_for(instructor).post(url, {"username": "ghost"}, format="json")
    error = error_of(r, 400, attr="username")
    assert error["code"] == "invalid" and "ghost" in error["detail"]
    assert error_attrs(client_for(instructor).post(url, {}, format="json")) == {"username"}
    assert error_attrs(client_for(instructor).post(url, {"username": ""}, format="json")) == {
        "username"
    }
    assert not Enrolment.objects.exists()


def test_staff_manage_any_course(client_for, staff, learner, course):
    admin = client_for(staff)
    url = f"/api/courses/{course.slug}/enrolments/"
    assert admin.post(url, {"username": "learner"}, format="json").status_code == 201
    assert [e["username"] for e in rows_of(admin.get(url))] == ["learner"]
    assert admin.delete(f"{url}learner/").status_code == 204


def test_non_instructors_get_404(client_for, api, learner, other_learner, course):
    EnrolmentFactory(user=other_learner, course=course)
    EnrolmentFactory(user=learner, course=course)  # enrolled is not instructing
    stranger = client_for(CourseRoleFactory(course=CourseFactory()).user)
    url = f"/api/courses/{course.slug}/enrolments/"
    for client in (api, stranger):
        assert client.get(url).status_code == 404
        assert client.post(url, {"username": "learner"}, format="json").status_code == 404
        assert client.post(url, {"username": "ghost"}, format="json").status_code == 404
        assert client.delete(f"{url}other/").status_code == 404
    assert enrolled(other_learner, course)


# ------------------------------------------------------------------------------- gates


def test_a_learner_not_enrolled_cannot_list_or_reach_a_course_quiz(api, learner, quiz):
    assert quiz.pk not in listed(api)
    assert api.get(f"/api/quizzes/{quiz.pk}/").status_code == 404
    assert api.get(f"/api/quizzes/{quiz.pk}/attempts/").status_code == 404
    assert api.post(f"/api/quizzes/{quiz.pk}/attempts/").status_code == 404
    assert not Attempt.objects.exists()


def test_enrolling_opens_the_course_quizzes(api, learner, course, quiz):
    assert api.post(f"/api/courses/{course.slug}/enrol/").status_code == 201
    assert quiz.pk in listed(api)
    assert api.get(f"/api/quizzes/{quiz.pk}/").status_code == 200
    assert api.post(f"/api/quizzes/{quiz.pk}/attempts/").status_code == 201


def test_removal_closes_the_quizzes_but_keeps_the_record(
    api, client_for, instructor, learner, course, quiz
):
    EnrolmentFactory(user=learner, course=course)
    aid = api.post(f"/api/quizzes/{quiz.pk}/attempts/").json()["id"]
    assert api.post(f"/api/attempts/{aid}/finish/").status_code == 200
    teacher = client_for(instructor)
    assert teacher.delete(f"/api/courses/{course.slug}/enrolments/learner/").status_code == 204
    assert quiz.pk not in listed(api)
    assert api.post(f"/api/quizzes/{quiz.pk}/attempts/").status_code == 404
    # Their attempt is their record: it stays, readable by them and by the instructor.
    assert api.get(f"/api/attempts/{aid}/").status_code == 200
    assert teacher.get(f"/api/attempts/{aid}/").status_code == 200


def test_enrolment_in_one_course_opens_no_other(api, learner, quiz):
    EnrolmentFactory(user=learner, course=CourseFactory())
    assert quiz.pk not in listed(api)
    assert api.post(f"/api/quizzes/{quiz.pk}/attempts/").status_code == 404


def test_quizzes_with_no_course_are_open_to_every_signed_in_user(client_for):
    open_quiz = QuizFactory(course=None, slots=[["gb-gib"]])
    anyone = client_for(UserFactory())
    assert open_quiz.pk in listed(anyone)
    assert anyone.post(f"/api/quizzes/{open_quiz.pk}/attempts/").status_code == 201


def test_instructors_and_staff_reach_quizzes_without_enrolment(client_for, instructor, staff, quiz):
    for user in (instructor, staff):
        client = client_for(user)
        assert quiz.pk in listed(client)
        assert client.get(f"/api/quizzes/{quiz.pk}/").status_code == 200
        assert client.post(f"/api/quizzes/{quiz.pk}/attempts/").status_code == 201
    assert not Enrolment.objects.exists()


def test_an_instructor_of_another_course_is_a_stranger(client_for, quiz):
    stranger = client_for(CourseRoleFactory(course=CourseFactory()).user)
    assert quiz.pk not in listed(stranger)
    assert stranger.post(f"/api/quizzes/{quiz.pk}/attempts/").status_code == 404


# ----------------------------------------------------------------------- lesson practice


def test_lesson_practice_enrols_on_first_use(api, learner):
    lesson = LessonFactory(slug="memory-math", templates=["gb-gib"])
    course = lesson.module.course
    r = api.post("/api/lessons/memory-math/practice/")
    assert r.status_code == 201, r.content
    enrolment = Enrolment.objects.get(user=learner, course=course)
    assert enrolment.source == Enrolment.Source.PRACTICE
    assert api.post("/api/lessons/memory-math/practice/").status_code == 201
    assert Enrolment.objects.filter(user=learner).count() == 1
    # Now a learner of the course: its lessons show in their mastery.
    assert [row["lesson"] for row in api.get("/api/me/mastery/").json()["lessons"]] == [
        "memory-math"
    ]


def test_lesson_practice_keeps_an_existing_enrolment(api, learner):
    lesson = LessonFactory(slug="memory-math", templates=["gb-gib"])
    EnrolmentFactory(user=learner, course=lesson.module.course, source=Enrolment.Source.SELF)
    assert api.post("/api/lessons/memory-math/practice/").status_code == 201
    assert Enrolment.objects.get(user=learner).source == Enrolment.Source.SELF


def test_lesson_practice_in_a_closed_course_is_403(api, learner, closed_course):
    LessonFactory(slug="secret", module__course=closed_course, templates=["gb-gib"])
    r = api.post("/api/lessons/secret/practice/")
    assert error_of(r, 403)["code"] == "permission_denied"
    assert not enrolled(learner, closed_course)
    assert not Attempt.objects.exists()


def test_enrolled_and_instructors_practise_in_a_closed_course(client_for, learner, closed_course):
    LessonFactory(slug="secret", module__course=closed_course, templates=["gb-gib"])
    EnrolmentFactory(user=learner, course=closed_course)
    assert client_for(learner).post("/api/lessons/secret/practice/").status_code == 201
    teacher = CourseRoleFactory(course=closed_course).user
    assert client_for(teacher).post("/api/lessons/secret/practice/").status_code == 201
    assert not enrolled(teacher, closed_course)


def test_the_enrolments_list_carries_the_learner_id_the_extensions_take(
    client_for, instructor, learner, course
):
    """Issue 36: the extensions API is keyed by the learner's integer id, which the
    enrolments list now gives beside the username, so a client can find it."""
    from datetime import timedelta

    EnrolmentFactory(user=learner, course=course)
    quiz = QuizFactory(course=course, mode="exam", time_limit=timedelta(minutes=10))
    teacher = client_for(instructor)
    [row] = rows_of(teacher.get(f"/api/courses/{course.slug}/enrolments/"))
    assert (row["username"], row["learner_id"]) == ("learner", learner.pk)
    put = teacher.put(
        f"/api/quizzes/{quiz.pk}/extensions/{row['learner_id']}/",
        {"extra_time_minutes": 5},
        format="json",
    )
    assert put.status_code == 200, put.content
    assert put.json()["username"] == "learner"
