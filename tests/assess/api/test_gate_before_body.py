"""Who the caller is decides before what they sent (issue 33 item 12), in the cases the
access matrix's world has no role for: an instructor scoped to an LMS course, and a
capstone course closed to self-enrolment. tests/access/test_gate_before_body.py sweeps
the matrix's own cells."""

from __future__ import annotations

import pytest
from lti_tool.models import LtiContext, LtiDeployment, LtiRegistration

from assess.models import Enrolment, Quiz
from capstone.models import Capstone
from capstone.services import CAPSTONE_COURSE
from tests.assess.helpers import error_of
from tests.factories import CourseFactory, CourseRoleFactory
from tests.openapi import assert_documented

pytestmark = pytest.mark.django_db

QUIZZES = "/api/quizzes/"
A_QUIZ = {"title": "Units", "mode": "practice", "slots": [{"templates": ["gb-gib"]}]}


@pytest.fixture
def scoped(course):
    """An instructor of `course` scoped to one LMS course, and of no course course-wide."""
    registration = LtiRegistration.objects.create(
        name="LMS",
        issuer="https://lms.example.org",
        client_id="c",
        auth_url="https://lms.example.org/auth",
        token_url="https://lms.example.org/token",
        keyset_url="https://lms.example.org/jwks.json",
    )
    deployment = LtiDeployment.objects.create(registration=registration, deployment_id="d")
    context = LtiContext.objects.create(deployment=deployment, id_on_platform="a", title="A")
    return CourseRoleFactory(course=course, lti_context=context).user


def post(client, path: str, body):
    response = client.post(path, body, format="json")
    assert_documented(response, "post", path)
    return response


def test_a_learner_creating_a_quiz_is_403_whatever_the_body(api, course):
    """Was 400 "Unknown course 'no-such-course'" (and 400 for an empty body): the body
    was judged before the caller."""
    for body in ({}, {**A_QUIZ, "course": "no-such-course"}, {**A_QUIZ, "course": course.slug}):
        error = error_of(post(api, QUIZZES, body), 403)
        assert error["code"] == "permission_denied" and error["attr"] is None, body
    assert not Quiz.objects.exists()


def test_an_lms_scoped_instructor_creating_a_quiz_is_403_whatever_the_body(
    client_for, scoped, course
):
    for body in ({}, {**A_QUIZ, "course": "no-such-course"}, {**A_QUIZ, "course": course.slug}):
        error = error_of(post(client_for(scoped), QUIZZES, body), 403)
        assert "LMS course" in error["detail"], body
    assert not Quiz.objects.exists()


def test_an_instructor_naming_an_unknown_course_is_told_so(client_for, instructor, course):
    """Someone who may create quizzes is let through to the body: its faults are 400s."""
    error = error_of(post(client_for(instructor), QUIZZES, {**A_QUIZ, "course": "nope"}), 400)
    assert error["attr"] == "course" and "Unknown course" in error["detail"]
    assert error_of(post(client_for(instructor), QUIZZES, {}), 400)["attr"] in ("title", "slots")


def test_an_lms_scoped_instructor_adding_a_learner_is_403_whatever_the_body(
    client_for, scoped, course
):
    """Was 400 for an empty or malformed body (the roster's write rule is the service's,
    and ran after the body); a scoped instructor's LMS manages their roster."""
    url = f"/api/courses/{course.slug}/enrolments/"
    for body in ({}, {"username": "nobody-here"}, {"username": 7}):
        error = error_of(post(client_for(scoped), url, body), 403)
        assert "LMS course" in error["detail"], body
    assert not Enrolment.objects.exists()
    response = client_for(scoped).delete(f"{url}nobody-here/")
    assert "LMS course" in error_of(response, 403)["detail"]
    assert_documented(response, "delete", f"{url}nobody-here/")


def test_a_memo_to_a_capstone_closed_to_self_enrolment_is_403_whatever_the_body(api):
    """Was 400 for an empty or blank memo from a learner the course would refuse (the
    enrolment rule ran only once the memo was read)."""
    CourseFactory(slug=CAPSTONE_COURSE, self_enrol=False)
    for body in ({}, {"markdown": ""}, {"markdown": "# Capacity plan\n\n8 GPUs."}):
        error = error_of(post(api, "/api/memos/", body), 403)
        assert error["code"] == "permission_denied", body
    assert not Capstone.objects.exists() and not Enrolment.objects.exists()
