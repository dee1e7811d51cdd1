"""Deprovisioning (issue 35 item 4): a manager removes someone who left from their
organisation; staff deactivate an account. What the people around them see changes at
once, the certificates stay verifiable, and each is audited."""

from __future__ import annotations

import pytest
from allauth.socialaccount.models import SocialAccount
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.services.deprovision import account_deactivate, account_reactivate
from api_common.service_errors import InvalidInput
from audit.models import AuditEvent
from orgs.models import Membership, TeamMember
from orgs.services import member_add, team_member_add
from tests.accounts.people import api_as, make_org
from tests.accounts.sso import register, sign_on
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db
User = get_user_model()


def sessions_of(user) -> list[str]:
    return [
        s.session_key
        for s in Session.objects.all()
        if s.get_decoded().get("_auth_user_id") == str(user.pk)
    ]


def remove(client, org, user):
    return client.post(f"/organisations/{org.organization.slug}/members/{user.pk}/remove/")


def test_a_manager_removes_a_member_and_their_pages_and_the_check_stop_showing_them(client):
    org = make_org()
    api = api_as(org.manager)
    check = f"/api/certifications/check/?user=eve&track={org.track.slug}"
    assert api.get(check).status_code == 200
    readiness = f"/api/teams/{org.team.pk}/readiness/"
    assert [r["user"]["username"] for r in api.get(readiness).json()["rows"]] == ["eve"]

    client.force_login(org.manager)
    page = client.get("/organisations/acme/members/")
    assert page.status_code == 200 and "Remove eve from Acme Corp" in page.content.decode()
    done = remove(client, org, org.engineer)
    assert done.status_code == 302 and done["Location"] == "/organisations/acme/members/"
    after = client.get(done["Location"]).content.decode()
    assert "Eve Engineer is no longer a member of Acme Corp" in after
    assert "Remove eve" not in after

    assert not Membership.objects.filter(user=org.engineer).exists()
    assert not TeamMember.objects.filter(user=org.engineer).exists()
    # The manager's next calls: the check's gate no longer finds her (404), the matrix
    # and its CSV list no one, the certificate cannot be revoked by this manager (404).
    assert api.get(check).status_code == 404
    assert api.get(readiness).json()["rows"] == []
    assert "eve" not in client.get(f"/teams/{org.team.pk}/readiness.csv").getvalue().decode()
    assert "Eve Engineer" not in client.get(f"/teams/{org.team.pk}/").content.decode()
    revoke = api.post(f"/api/certificates/{org.certificate.pk}/revoke/", {"reason": "left"})
    assert revoke.status_code == 404
    # Her certificate stays verifiable, as history, on its public page and the API.
    public = APIClient().get(f"/api/certificates/{org.certificate.pk}/verify/")
    assert public.status_code == 200 and public.json()["status"] == "valid"
    assert public.json()["holder"] == "Eve Engineer"
    assert "Eve Engineer" in client.get(f"/certificates/{org.certificate.pk}/").content.decode()
    # Audited: one event, who removed whom and which teams it ended.
    event = AuditEvent.objects.get(action=AuditEvent.Action.MEMBER_REMOVE)
    assert event.actor == org.manager and event.target_label == "Acme Corp"
    assert event.detail == {
        "user": "eve",
        "role": "member",
        "teams": ["sre"],
        "sign_on_unlinked": False,
    }


def test_a_removed_manager_s_next_api_calls_are_404(client):
    """Removing a co-manager: their own next calls about the organisation's team and
    people meet the gate's 404, as anyone's outside it do."""
    org = make_org()
    other = UserFactory(username="otto")
    member_add(organization=org.organization, user=other, role="manager")
    api = api_as(other)
    readiness = f"/api/teams/{org.team.pk}/readiness/"
    check = f"/api/certifications/check/?user=eve&track={org.track.slug}"
    assert api.get(readiness).status_code == 200 and api.get(check).status_code == 200
    client.force_login(org.manager)
    assert remove(client, org, other).status_code == 302
    assert api.get(readiness).status_code == 404
    assert api.get(check).status_code == 404
    assert api.get("/api/teams/").json()["results"] == []
    assert client.get("/organisations/acme/members/").status_code == 200  # the remover stays
    client.force_login(other)
    assert client.get("/organisations/acme/members/").status_code == 404


def test_nobody_outside_the_organisation_removes_and_a_manager_not_themselves(client):
    org = make_org()
    stranger = UserFactory(username="sam")
    elsewhere = UserFactory(username="ella")
    client.force_login(stranger)
    assert client.get("/organisations/acme/members/").status_code == 404
    assert remove(client, org, org.engineer).status_code == 404
    client.force_login(org.manager)
    assert remove(client, org, elsewhere).status_code == 404  # not a member: 404
    assert client.get("/organisations/nowhere/members/").status_code == 404
    refused = client.post(f"/organisations/acme/members/{org.manager.pk}/remove/", follow=True)
    assert "You cannot remove yourself" in refused.content.decode()
    assert Membership.objects.filter(user=org.manager).exists()
    assert Membership.objects.filter(user=org.engineer).exists()
    assert not AuditEvent.objects.filter(action=AuditEvent.Action.MEMBER_REMOVE).exists()


def test_the_members_page_costs_the_same_queries_for_two_members_or_twelve(client):
    org = make_org()
    client.force_login(org.manager)

    def queries() -> int:
        with CaptureQueriesContext(connection) as ctx:
            assert client.get("/organisations/acme/members/").status_code == 200
        return len(ctx)

    few = queries()
    for n in range(10):
        team_member_add(team=org.team, user=UserFactory(username=f"eng{n}"))
    assert queries() == few


def test_a_removed_member_can_no_longer_sign_in_through_the_organisation(client, provider):
    """Her company sign-in is unlinked with the membership: the provider vouching for
    her again is a non-member's sign-on with an address that has an account, refused."""
    organization = register(provider)
    assert sign_on(client, provider, "alice").finish.status_code == 302
    alice = User.objects.get(email="alice@acme.example")
    manager = UserFactory(username="mona")
    member_add(organization=organization, user=manager, role="manager")
    client.force_login(manager)
    assert client.post(f"/organisations/acme/members/{alice.pk}/remove/").status_code == 302
    assert not SocialAccount.objects.filter(user=alice).exists()
    event = AuditEvent.objects.get(action=AuditEvent.Action.MEMBER_REMOVE)
    assert event.detail["sign_on_unlinked"] is True
    client.logout()
    again = sign_on(client, provider, "alice")
    assert again.finish.status_code == 403
    assert "_auth_user_id" not in client.session
    assert not Membership.objects.filter(user=alice).exists()


# ------------------------------------------------------------------ deactivation


def test_deactivating_revokes_tokens_ends_sessions_and_refuses_sign_in(client):
    org = make_org()
    staff = UserFactory(username="root", is_staff=True)
    api = api_as(org.engineer)
    assert api.get("/api/me/mastery/").status_code == 200
    other_browser = type(client)()
    other_browser.force_login(org.engineer)
    assert other_browser.get("/dashboard/").status_code == 200

    assert account_deactivate(actor=staff, user=org.engineer) is True

    assert api.get("/api/me/mastery/").status_code == 401
    assert not Token.objects.filter(user=org.engineer).exists()
    assert other_browser.get("/dashboard/").status_code == 302  # signed out
    assert sessions_of(org.engineer) == []  # the rows are gone, not only refused
    signed_in = client.post("/accounts/login/", {"login": "eve", "password": PASSWORD})
    assert signed_in.status_code == 302 and signed_in["Location"] == "/accounts/inactive/"
    assert "_auth_user_id" not in client.session
    token = APIClient().post("/api/auth/token/", {"username": "eve", "password": PASSWORD})
    assert token.status_code == 400
    # Certificates stay verifiable as history.
    public = APIClient().get(f"/api/certificates/{org.certificate.pk}/verify/")
    assert public.status_code == 200
    actions = list(
        AuditEvent.objects.filter(target_id=str(org.engineer.pk)).values_list("action", "detail")
    )
    assert (
        "account.deactivate",
        {"tokens_revoked": 1, "sessions_ended": 1},
    ) in actions
    assert ("token.revoke", {"by": "deactivation"}) in actions
    # Again: nothing more to do, nothing written.
    before = AuditEvent.objects.count()
    assert account_deactivate(actor=staff, user=org.engineer) is False
    assert AuditEvent.objects.count() == before
    # Reactivated, she signs in with a new session and token.
    assert account_reactivate(actor=staff, user=org.engineer) is True
    assert (
        APIClient().post("/api/auth/token/", {"username": "eve", "password": PASSWORD}).status_code
        == 200
    )


def test_staff_cannot_deactivate_themselves():
    staff = UserFactory(username="root", is_staff=True)
    with pytest.raises(InvalidInput):
        account_deactivate(actor=staff, user=staff)
    staff.refresh_from_db()
    assert staff.is_active


def test_the_admin_deactivates_and_reactivates(client):
    org = make_org()
    staff = UserFactory(username="root", is_staff=True, is_superuser=True)
    client.force_login(staff)
    url = "/admin/auth/user/"
    done = client.post(url, {"action": "deactivate", "_selected_action": [org.engineer.pk]})
    assert done.status_code == 302
    org.engineer.refresh_from_db()
    assert not org.engineer.is_active
    event = AuditEvent.objects.get(action="account.deactivate")
    assert event.actor == staff
    client.post(url, {"action": "reactivate", "_selected_action": [org.engineer.pk]})
    org.engineer.refresh_from_db()
    assert org.engineer.is_active
    assert AuditEvent.objects.filter(action="account.reactivate", actor=staff).count() == 1
