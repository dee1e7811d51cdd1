"""Races on invitations, on real PostgreSQL: the invitation row's lock decides who
accepts, and the partial unique constraint (one pending invitation per address and
place) decides between two managers inviting the same address at once.

Each thread has its own connection; transactional_db lets the threads see the setup
(see test_assess_races.py).
"""

from __future__ import annotations

import re

import pytest
from django.core import mail

from api_common.service_errors import Conflict
from audit.models import AuditEvent
from invitations.models import Invitation
from invitations.places import Place
from invitations.rows import rows_from_text
from invitations.services import (
    InvitationRefused,
    invitation_accept,
    invitation_revoke,
    invitations_send,
)
from orgs.models import TeamMember
from orgs.services import member_add, organization_create, team_create
from tests.factories import UserFactory
from tests.services.test_assess_races import run_together

SITE = "http://testserver/"


@pytest.fixture
def place(services_ready, transactional_db):
    organization = organization_create(slug="gpu-cloud", name="GPU Cloud")
    team = team_create(organization=organization, slug="oncall", name="On-call")
    return Place(organization=organization, team=team)


def _manager(place, name="boss"):
    user = UserFactory(username=name)
    member_add(organization=place.organization, user=user, role="manager")
    return user


def _token() -> str:
    return re.search(r"/invitations/accept/([^/\s]+)/", mail.outbox[-1].body).group(1)


@pytest.mark.parametrize("n", [2, 8])
def test_one_link_clicked_at_once_joins_once(place, n):
    invitations_send(
        actor=_manager(place), place=place, rows=rows_from_text("ada@x.org"), site_url=SITE
    )
    token = _token()
    ada = UserFactory(username="ada", email="ada@x.org")
    results = run_together(n, lambda i: invitation_accept(user=ada, token=token))
    accepted = [r for r in results if isinstance(r, Invitation)]
    refused = [r for r in results if isinstance(r, InvitationRefused)]
    assert len(accepted) == 1 and len(refused) == n - 1, results
    assert {r.reason for r in refused} <= {"accepted"}
    assert TeamMember.objects.filter(team=place.team, user=ada).count() == 1
    assert AuditEvent.objects.filter(action="invitation.accept").count() == 1


def test_two_managers_inviting_one_address_leave_one_pending_invitation(place):
    managers = [_manager(place, "boss"), _manager(place, "other-boss")]
    results = run_together(
        2,
        lambda i: invitations_send(
            actor=managers[i], place=place, rows=rows_from_text("ada@x.org"), site_url=SITE
        ),
    )
    assert all(isinstance(r, list | Conflict) for r in results), results
    assert Invitation.objects.filter(email="ada@x.org", status="pending").count() == 1


def test_a_revocation_racing_the_acceptance_leaves_one_outcome(place):
    manager = _manager(place)
    for attempt in range(3):
        address = f"p{attempt}@x.org"
        invitations_send(actor=manager, place=place, rows=rows_from_text(address), site_url=SITE)
        token, invitation = _token(), Invitation.objects.get(email=address)
        person = UserFactory(username=f"p{attempt}", email=address)

        def act(i, token=token, invitation=invitation, person=person):
            if i == 0:
                return invitation_revoke(actor=manager, invitation=invitation)
            return invitation_accept(user=person, token=token)

        results = run_together(2, act)
        # Each side either did its part or was told the other came first.
        assert all(isinstance(r, Invitation | InvitationRefused | Conflict) for r in results), (
            results
        )
        invitation.refresh_from_db()
        joined = TeamMember.objects.filter(team=place.team, user=person).exists()
        assert joined == (invitation.status == "accepted"), (invitation.status, results)
