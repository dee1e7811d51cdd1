"""Launches that must work (the checklist's "must succeed" rows), end to end: the
learner lands (303) on the attempt page, signed in, enrolled, with the link mapped to
the quiz; a reload is a GET that replays nothing; an instructor lands on the quiz's
teaching page, an instructor of its course scoped to the launch's LMS context; a platform
key rotation does not break launches."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from lti_tool.models import LtiContext, LtiUser

from assess.models import Attempt, CourseRole, Enrolment
from lti.models import ResourceLinkQuiz
from tests.factories import QuizFactory
from tests.lti.conftest import CLAIM, INSTRUCTOR, ISS, PlatformKey, row_counts, signed_in_user

MUST_SUCCEED = {
    "unknown role URI": {CLAIM + "roles": ["http://example.org/roles#Juggler"]},
    "short role name": {CLAIM + "roles": ["Learner"]},
    "empty roles list": {CLAIM + "roles": []},
    "no name or email": {"given_name": None, "family_name": None, "email": None},
    "no context claim": {CLAIM + "context": None},
    "a new resource link id": {CLAIM + "resource_link": {"id": "brand-new-link"}},
}


def _launch(platform, overrides):
    state, nonce = platform.login()
    claims = platform.claims(nonce)
    for name, value in overrides.items():
        if value is None:
            del claims[name]
        else:
            claims[name] = value
    return platform.post(platform.sign(claims), state)


@pytest.mark.parametrize("row", list(MUST_SUCCEED), ids=list(MUST_SUCCEED))
def test_must_succeed_rows_start_an_attempt(platform, row):
    response = _launch(platform, MUST_SUCCEED[row])
    assert response.status_code == 303, response.content
    attempt = Attempt.objects.get()
    assert response["Location"] == reverse("attempt-detail", args=[attempt.pk])
    assert str(attempt.learner_id) == signed_in_user(platform.client)


def test_short_instructor_role_teaches(platform):
    response = _launch(platform, {CLAIM + "roles": ["Instructor"]})
    assert response.status_code == 303
    assert response["Location"] == reverse("quiz-items", args=[platform.quiz.pk])


def test_learner_launch_lands_on_the_attempt_and_a_reload_replays_nothing(platform):
    response = platform.launch()
    assert response.status_code == 303
    attempt = Attempt.objects.get()
    lti_user = LtiUser.objects.get(sub="learner-sub-1", registration__issuer=ISS)
    user = attempt.learner
    assert lti_user.auth_user == user
    assert user.username.startswith("lti-") and "learner" not in user.username
    assert not user.has_usable_password()
    assert (user.first_name, user.email) == ("Ada", "ada@example.org")
    assert Enrolment.objects.get(user=user).course == platform.quiz.course
    assert Enrolment.objects.get(user=user).source == Enrolment.Source.LTI
    assert ResourceLinkQuiz.objects.get().quiz == platform.quiz
    assert LtiContext.objects.get().id_on_platform == "course-a"

    counts = row_counts()
    for _ in range(2):  # the landing and a reload: plain GETs, signed in by the session
        page = platform.client.get(response["Location"], secure=True)
        assert page.status_code == 200
        assert platform.quiz.title in page.content.decode()
    assert row_counts() == counts

    # launching again (a new login) resumes the same attempt, same user
    again = platform.launch()
    assert again["Location"] == response["Location"]
    assert get_user_model().objects.filter(lti_users__isnull=False).count() == 1


def test_the_username_is_per_issuer_and_sub_and_reveals_neither():
    from lti.identity import _username

    names = {_username(iss, sub) for iss in ("https://a.org", "https://b.org") for sub in "xy"}
    assert len(names) == 4
    assert all(n.startswith("lti-") and "org" not in n and len(n) == 28 for n in names)


def test_instructor_launch_lands_on_the_teaching_page(platform):
    response = platform.launch(sub="teacher-sub", roles=[INSTRUCTOR])
    assert response.status_code == 303
    assert response["Location"] == reverse("quiz-items", args=[platform.quiz.pk])
    user = LtiUser.objects.get(sub="teacher-sub").auth_user
    # An instructor of the quiz's course scoped to the launch's LMS context, not of the
    # whole course (tests/lti/test_context_scope.py).
    role = CourseRole.objects.get(user=user)
    assert (role.course, role.role) == (platform.quiz.course, CourseRole.Role.INSTRUCTOR)
    assert role.lti_context == LtiContext.objects.get(id_on_platform="course-a")
    assert not Attempt.objects.exists()
    assert not Enrolment.objects.filter(user=user).exists()
    page = platform.client.get(response["Location"], secure=True)
    assert page.status_code == 200


def test_the_link_keeps_its_quiz_when_custom_changes(platform):
    assert platform.launch().status_code == 303
    other = QuizFactory(course=platform.quiz.course)
    response = platform.launch(**{CLAIM + "custom": {"quiz_id": str(other.pk)}})
    assert response.status_code == 303
    assert Attempt.objects.get().quiz == platform.quiz


def test_same_link_id_in_another_lms_course_maps_separately(platform):
    assert platform.launch().status_code == 303
    other = QuizFactory(course=platform.quiz.course)
    response = platform.launch(
        **{
            CLAIM + "context": {"id": "course-b"},
            CLAIM + "custom": {"quiz_id": str(other.pk)},
        }
    )
    assert response.status_code == 303
    assert {link.quiz for link in ResourceLinkQuiz.objects.all()} == {platform.quiz, other}


@pytest.mark.parametrize("custom", [None, {}, {"quiz_id": "no"}, {"quiz_id": "999999"}], ids=str)
def test_a_launch_without_a_quiz_is_a_clear_400(platform, custom):
    overrides = {CLAIM + "custom": custom} if custom is not None else {CLAIM + "custom": None}
    response = _launch(platform, overrides)
    assert response.status_code == 400
    assert "quiz" in response.content.decode()
    assert not Attempt.objects.exists()


def test_platform_key_rotation_keeps_launches_working(platform):
    assert platform.launch().status_code == 303  # key set now cached by the tool
    new = PlatformKey("platform-key-2")
    platform.published = [new, platform.key]  # rotated: new kid, old still published
    old = platform.key
    platform.key = new
    assert platform.launch(sub="after-rotation").status_code == 303
    assert platform.keyset_fetches == 2  # the unknown kid refetched once
    platform.key = old  # a token signed before the rotation still verifies
    assert platform.launch(sub="old-key").status_code == 303
    assert platform.keyset_fetches == 2


def test_login_by_post_works_too(platform):
    state, nonce = platform.login(method="post")
    response = platform.post(platform.sign(platform.claims(nonce)), state)
    assert response.status_code == 303
