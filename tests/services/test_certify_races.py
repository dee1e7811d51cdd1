"""Races on certificates, on real PostgreSQL: the partial unique constraint (one valid
certificate per holder and track) and the revocation's row lock decide.

Each thread gets its own database connection and closes it; transactional_db lets the
threads see the committed setup (see test_assess_races.py).
"""

from __future__ import annotations

import pytest
from django.utils import timezone

from certify.models import Certificate
from certify.services.certificates import certificate_revoke, certificates_issue_due
from orgs.models import Membership
from orgs.services import member_add, organization_create
from tests.certify.conftest import FLEET, ready_learner, tracks  # noqa: F401 - fixtures
from tests.factories import UserFactory
from tests.services.test_assess_races import run_together


@pytest.fixture
def ready(services_ready, transactional_db, tracks, ready_learner):  # noqa: F811
    return tracks[FLEET], ready_learner(tracks[FLEET])


@pytest.mark.parametrize("same_now", [False, True], ids=["own-clock", "same-now"])
@pytest.mark.parametrize("n", [2, 8])
def test_concurrent_evaluations_issue_one_certificate(ready, n, same_now):
    """With one `now` handed to every caller (a task retried with its timestamp), only
    the caller whose insert won reports the certificate as issued."""
    track, learner = ready
    now = timezone.now() if same_now else None
    results = run_together(n, lambda i: certificates_issue_due(user_id=learner.pk, now=now))
    assert not [r for r in results if isinstance(r, Exception)], results
    assert Certificate.objects.filter(holder=learner, track=track).count() == 1
    # Exactly one caller reports the issue; the others found it there.
    assert sorted(len(r) for r in results) == [0] * (n - 1) + [1]


def test_a_revocation_racing_issuance_leaves_no_two_valid(ready):
    track, learner = ready
    [certificate] = certificates_issue_due(user_id=learner.pk)
    org = organization_create(slug="acme", name="Acme")
    manager = UserFactory(username="boss")
    member_add(organization=org, user=learner)
    member_add(organization=org, user=manager, role=Membership.Role.MANAGER)

    def act(i):
        if i == 0:
            return certificate_revoke(
                actor=manager, certificate=certificate, reason="Failed the drill"
            )
        return certificates_issue_due(user_id=learner.pk)

    for _ in range(3):
        results = run_together(4, act)
        assert not [r for r in results if isinstance(r, Exception)], results
        assert Certificate.objects.filter(holder=learner, track=track, status="valid").count() <= 1
    # The pass was spent on the revoked certificate: nothing was reissued.
    assert list(Certificate.objects.filter(holder=learner).values_list("status", flat=True)) == [
        "revoked"
    ]


def test_concurrent_revocations_keep_the_first_reason(ready):
    track, learner = ready
    [certificate] = certificates_issue_due(user_id=learner.pk)
    manager = UserFactory(username="root", is_staff=True)
    reasons = [f"reason {i}" for i in range(4)]
    results = run_together(
        4,
        lambda i: certificate_revoke(actor=manager, certificate=certificate, reason=reasons[i]),
    )
    assert not [r for r in results if isinstance(r, Exception)], results
    certificate.refresh_from_db()
    assert certificate.status == "revoked" and certificate.revoke_reason in reasons
    assert {r.revoke_reason for r in results} == {certificate.revoke_reason}
