"""Fixtures shared by the Django test folders.

`instructor` teaches whatever `course` the requesting folder's conftest defines.
"""

import pytest

from tests.factories import CourseRoleFactory, UserFactory


@pytest.fixture
def instructor(course):
    return CourseRoleFactory(user__username="teacher", course=course).user


@pytest.fixture
def staff(db):
    return UserFactory(username="admin", is_staff=True)


@pytest.fixture(autouse=True)
def _empty_cache():
    """The sign-in throttles count in the cache: every test starts with nothing counted."""
    from django.core.cache import cache

    cache.clear()
