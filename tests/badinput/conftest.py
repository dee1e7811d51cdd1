"""Fixtures of the bad-input tests: the world every write operation reaches into, built
once per module inside a transaction rolled back after it (each request of the tests runs
in a savepoint of its own, rolled back too, so every request meets the same world)."""

from __future__ import annotations

import pytest
from django.db import transaction

from tests.badinput.world import World, build_world


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker) -> World:
    with django_db_blocker.unblock(), transaction.atomic():
        yield build_world()
        transaction.set_rollback(True)
