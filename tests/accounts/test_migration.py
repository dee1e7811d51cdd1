"""The data migration that makes every account older than sign-up count as confirmed:
its address becomes allauth's, verified and primary, but for an address two accounts
share (only one may hold it verified: left to staff) and accounts with none."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from accounts.selectors import email_confirmed
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def migrate(target: tuple[str, str]) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])


@pytest.fixture(autouse=True)
def _back_to_the_latest_schema():
    """Whatever the test leaves, the worker's next tests meet every migration applied:
    stopping at 0002 left later accounts tables (0003's erasures) missing for them."""
    yield
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


def test_existing_accounts_addresses_become_verified():
    migrate(("accounts", "0001_sign_ups"))
    ada = UserFactory(username="ada", email="Ada@Example.com")
    twin_a = UserFactory(username="twin-a", email="twin@example.com")
    twin_b = UserFactory(username="twin-b", email="TWIN@example.com")
    nobody = UserFactory(username="nobody", email="")
    EmailAddress.objects.all().delete()  # as before allauth: no rows at all

    migrate(("accounts", "0002_existing_addresses_confirmed"))

    row = EmailAddress.objects.get(user=ada)
    assert (row.email, row.verified, row.primary) == ("ada@example.com", True, True)
    assert not EmailAddress.objects.filter(user__in=[twin_a, twin_b, nobody]).exists()
    assert all(email_confirmed(user=u) for u in (ada, twin_a, twin_b, nobody))
