"""Fixtures for page tests: people with roles, a small course, and helpers that read the
stored answers (server side) to type right or deliberately wrong ones."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client

from assess.models import Quiz
from assess.services.attempts import attempt_start
from assess.services.questions import practice_question_add
from tests.factories import (
    PASSWORD,
    CourseFactory,
    EnrolmentFactory,
    LessonFactory,
    ModuleFactory,
    QuizFactory,
    UserFactory,
)


@pytest.fixture
def learner(db):
    return UserFactory(username="learner")


@pytest.fixture
def other_learner(db):
    return UserFactory(username="other")


@pytest.fixture
def course(db):
    return CourseFactory(slug="ai-infra", title="AI Infra")


@pytest.fixture
def enrolled(learner, course):
    """The learner enrolled in the course: its quizzes list and start only then."""
    EnrolmentFactory(user=learner, course=course)
    return learner


@pytest.fixture
def module(course):
    return ModuleFactory(course=course, slug="basic", title="Basic")


@pytest.fixture
def lesson(module):
    """Only weights-memory is linked, so practice always draws it (GB or GiB parts)."""
    return LessonFactory(
        module=module,
        slug="gpu-memory-math",
        title="GPU Memory Math",
        objectives=["Size a model's weights in GB and GiB."],
        templates=["weights-memory"],
    )


@pytest.fixture
def kv_lesson(module):
    return LessonFactory(
        module=module, slug="the-kv-cache", title="The KV Cache", templates=["kv-cache-per-token"]
    )


@pytest.fixture
def login(client):
    """login(user) -> the test client, signed in through the real login form; signing in
    as someone else first signs out (the login page sends a signed-in user away)."""

    def sign_in(user) -> Client:
        client.logout()
        response = client.post("/accounts/login/", {"login": user.username, "password": PASSWORD})
        assert response.status_code == 302, response.content
        return client

    return sign_in


@pytest.fixture
def practice(learner, lesson):
    """A lesson-practice question for the learner, made through the service."""
    return practice_question_add(learner=learner, lesson=lesson)


@pytest.fixture
def exam(course):
    return QuizFactory(
        title="Sizing exam",
        mode=Quiz.Mode.EXAM,
        course=course,
        time_limit=timedelta(minutes=10),
        slots=[["weights-memory"], ["kv-cache-per-token"]],
    )


@pytest.fixture
def exam_attempt(exam, enrolled):
    """Started as the page would: only an enrolled learner may take the course's exam."""
    attempt, _ = attempt_start(quiz=exam, learner=enrolled)
    return attempt
