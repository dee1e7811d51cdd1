"""The access matrix's world, built once per module (see world.py)."""

import pytest
from django.db import transaction

from tests.access.world import build_world


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    """Every object of the matrix, made once: inside a transaction that is rolled back
    after the module, so each test's own transaction is a savepoint within it and what a
    cell writes is gone before the next cell."""
    with django_db_blocker.unblock(), transaction.atomic():
        yield build_world()
        transaction.set_rollback(True)
