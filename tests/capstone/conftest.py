"""Fixtures for capstone tests: the assess tests' users, course and signed-in clients."""

from tests.assess.conftest import api, client_for, course, learner, other_learner  # noqa: F401
