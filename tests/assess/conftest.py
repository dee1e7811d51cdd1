"""Fixtures for assess tests: users with roles, and API clients signed in as them."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.factories import CourseFactory, UserFactory


@pytest.fixture
def learner(db):
    return UserFactory(username="learner")


@pytest.fixture
def other_learner(db):
    return UserFactory(username="other")


@pytest.fixture
def course(db):
    return CourseFactory(slug="ai-infra")


@pytest.fixture
def client_for(db):
    """client_for(user) -> an APIClient authenticated as that user."""

    def make(user) -> APIClient:
        client = APIClient()
        client.force_authenticate(user)
        return client

    return make


@pytest.fixture
def api(client_for, learner) -> APIClient:
    return client_for(learner)
