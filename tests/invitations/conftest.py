"""Fixtures for the invitation tests: an organisation with a team and its manager, a
course with its instructor, and reading the link out of the outbox."""

from __future__ import annotations

import re

import pytest
from django.core import mail

from orgs.services import member_add, organization_create, team_create
from tests.factories import CourseFactory, CourseRoleFactory, UserFactory


@pytest.fixture
def organization(db):
    return organization_create(slug="gpu-cloud", name="GPU Cloud")


@pytest.fixture
def team(organization):
    return team_create(organization=organization, slug="oncall", name="Inference on-call")


@pytest.fixture
def manager(organization):
    user = UserFactory(username="boss")
    member_add(organization=organization, user=user, role="manager")
    return user


@pytest.fixture
def course(db):
    return CourseFactory(slug="learn-infra", title="Learn Infra", self_enrol=False)


@pytest.fixture
def instructor(course):
    return CourseRoleFactory(user__username="teacher", course=course).user


def link_to(address: str) -> str:
    """The path of the last invitation link mailed to `address`."""
    sent = [m for m in mail.outbox if address in m.to]
    assert sent, f"no mail to {address}"
    return re.search(r"https?://[^/\s]+(/invitations/accept/[^/\s]+/)", sent[-1].body).group(1)
