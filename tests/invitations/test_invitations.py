"""Invitations (issue 35 item 3): a manager invites to their organisation and team, an
instructor to their course, by a one-use, expiring link; the invitee signs up (the
address counts as confirmed) or signs in, then joins. Spent links (expired, revoked,
used, resent) and the wrong account are refused and write nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client, override_settings
from django.utils import timezone

from accounts.models import SignUp
from accounts.selectors import email_confirmed
from assess.models import Enrolment
from audit.models import AuditEvent
from invitations.models import Invitation
from invitations.selectors import token_hash
from orgs.models import Membership, TeamMember
from tests.access.writes import row_counts
from tests.factories import PASSWORD, UserFactory
from tests.invitations.conftest import link_to

pytestmark = pytest.mark.django_db
User = get_user_model()
NEW_PASSWORD = "a long and fresh passphrase 71"


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def invite(client, url: str, addresses: str):
    return client.post(url, {"addresses": addresses})


def test_a_manager_invites_and_a_new_person_signs_up_and_joins_the_team(manager, team):
    response = invite(signed_in(manager), f"/teams/{team.pk}/invitations/", "Ada@Example.com")
    assert response.status_code == 200
    invitation = Invitation.objects.get()
    assert invitation.email == "ada@example.com" and invitation.team == team
    (message,) = mail.outbox
    assert message.to == ["ada@example.com"] and "Inference on-call" in message.subject
    link = link_to("ada@example.com")
    token = link.rstrip("/").rsplit("/", 1)[1]
    # Only a hash of the token is stored.
    assert invitation.token_hash == token_hash(token) and token not in invitation.token_hash

    visitor = Client()
    page = visitor.get(link)
    assert page.status_code == 200 and b"Create your account" in page.content
    start = visitor.post(link + "sign-up/")
    assert start.status_code == 302 and start["Location"].startswith("/accounts/signup/?")
    assert "email=ada%40example.com" in start["Location"]
    signed_up = visitor.post(
        "/accounts/signup/",
        {
            "email": "ada@example.com",
            "username": "ada",
            "password1": NEW_PASSWORD,
            "password2": NEW_PASSWORD,
            "next": link,
        },
    )
    assert signed_up.status_code == 302 and signed_up["Location"] == link
    ada = User.objects.get(username="ada")
    # The address arrived by mail: confirmed, no confirmation mail sent.
    assert EmailAddress.objects.get(user=ada).verified
    assert SignUp.objects.get(user=ada).confirmed_at is not None and email_confirmed(user=ada)
    assert len(mail.outbox) == 1
    assert not TeamMember.objects.filter(user=ada).exists()  # not before accepting

    accepted = visitor.post(link)
    assert accepted.status_code == 302 and accepted["Location"] == "/certify/"
    assert TeamMember.objects.filter(team=team, user=ada).exists()
    assert Membership.objects.filter(organization=team.organization, user=ada).exists()
    invitation.refresh_from_db()
    assert invitation.status == "accepted" and invitation.accepted_by == ada
    actions = list(AuditEvent.objects.order_by("id").values_list("action", "actor_label"))
    assert actions == [
        ("invitation.send", "boss"),
        ("team_member.add", "boss"),
        ("invitation.accept", "ada"),
    ]


def test_signing_up_with_another_address_confirms_nothing_and_cannot_accept(manager, team):
    invite(signed_in(manager), f"/teams/{team.pk}/invitations/", "ada@example.com")
    link = link_to("ada@example.com")
    visitor = Client()
    visitor.post(link + "sign-up/")
    visitor.post(
        "/accounts/signup/",
        {
            "email": "other@example.com",
            "username": "other",
            "password1": NEW_PASSWORD,
            "password2": NEW_PASSWORD,
        },
    )
    other = User.objects.get(username="other")
    assert not EmailAddress.objects.get(user=other).verified
    assert not email_confirmed(user=other)
    refused = visitor.post(link)
    assert refused.status_code == 403
    assert not TeamMember.objects.filter(user=other).exists()


@override_settings(SIGNUP_OPEN=False)
def test_closed_sign_up_stays_open_to_an_invitation(manager, organization):
    invite(signed_in(manager), f"/organisations/{organization.slug}/invitations/", "b@x.org")
    visitor = Client()
    assert b"Sign-up is closed" in visitor.get("/accounts/signup/").content
    visitor.post(link_to("b@x.org") + "sign-up/")
    page = visitor.get("/accounts/signup/?email=b%40x.org")
    assert b"Sign-up is closed" not in page.content and b'value="b@x.org"' in page.content


def test_an_existing_account_signs_in_and_joins_the_course(instructor, course):
    learner = UserFactory(username="lena", email="lena@example.com")
    invite(signed_in(instructor), f"/teach/courses/{course.slug}/invitations/", "lena@example.com")
    link = link_to("lena@example.com")
    visitor = Client()
    page = visitor.get(link)
    assert f'href="/accounts/login/?next={link}"' in page.content.decode()
    assert visitor.post(link)["Location"].startswith("/accounts/login/")  # must sign in
    signed = visitor.post("/accounts/login/", {"login": "lena", "password": PASSWORD, "next": link})
    assert signed.status_code == 302 and signed["Location"] == link
    assert b"Accept and join Learn Infra" in visitor.get(link).content
    accepted = visitor.post(link)
    assert accepted["Location"] == f"/courses/{course.slug}/"
    enrolment = Enrolment.objects.get(user=learner, course=course)
    assert enrolment.source == Enrolment.Source.INSTRUCTOR  # self_enrol is off: joined anyway
    assert AuditEvent.objects.filter(action="enrolment.add", actor_label="teacher").exists()


def test_accepting_confirms_an_unconfirmed_sign_up(manager, organization):
    """A sign-up that never followed its confirmation link: the invitation's link
    reached the same address, so the account may now start exams."""
    user = UserFactory(username="late", email="late@example.com")
    SignUp.objects.create(user=user)
    EmailAddress.objects.filter(user=user).update(verified=False)
    assert not email_confirmed(user=user)
    invite(signed_in(manager), f"/organisations/{organization.slug}/invitations/", user.email)
    signed_in(user).post(link_to(user.email))
    assert email_confirmed(user=user)
    assert EmailAddress.objects.get(user=user).verified
    assert Membership.objects.filter(organization=organization, user=user).exists()


def _spent(client, link):
    before = row_counts()
    responses = [client.get(link), client.post(link), client.post(link + "sign-up/")]
    assert row_counts() == before, "a refused link writes nothing"
    return responses


def test_an_expired_link_is_refused(manager, team):
    invite(signed_in(manager), f"/teams/{team.pk}/invitations/", "ada@example.com")
    Invitation.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    ada = UserFactory(username="ada", email="ada@example.com")
    for response in _spent(signed_in(ada), link_to("ada@example.com")):
        assert response.status_code == 410
        assert b"expired" in response.content
    assert not TeamMember.objects.filter(user=ada).exists()


def test_a_revoked_link_is_refused(manager, team):
    client = signed_in(manager)
    invite(client, f"/teams/{team.pk}/invitations/", "ada@example.com")
    invitation = Invitation.objects.get()
    assert client.post(f"/invitations/{invitation.pk}/revoke/").status_code == 302
    invitation.refresh_from_db()
    assert invitation.status == "revoked"
    ada = UserFactory(username="ada", email="ada@example.com")
    for response in _spent(signed_in(ada), link_to("ada@example.com")):
        assert response.status_code == 410 and b"withdrawn" in response.content
    assert not TeamMember.objects.filter(user=ada).exists()
    assert AuditEvent.objects.filter(action="invitation.revoke", actor_label="boss").exists()


def test_a_used_link_is_refused_the_second_time(manager, team):
    invite(signed_in(manager), f"/teams/{team.pk}/invitations/", "ada@example.com")
    ada = UserFactory(username="ada", email="ada@example.com")
    client = signed_in(ada)
    link = link_to("ada@example.com")
    assert client.post(link).status_code == 302
    for response in _spent(client, link):
        assert response.status_code == 410 and b"used already" in response.content
    assert AuditEvent.objects.filter(action="invitation.accept").count() == 1


def test_a_resent_invitation_kills_the_old_link(manager, team):
    client = signed_in(manager)
    invite(client, f"/teams/{team.pk}/invitations/", "ada@example.com")
    old = link_to("ada@example.com")
    invitation = Invitation.objects.get()
    resent = client.post(f"/invitations/{invitation.pk}/resend/", HTTP_HX_REQUEST="true")
    assert resent.status_code == 200 and b"the earlier one no longer works" in resent.content
    new = link_to("ada@example.com")
    assert new != old and len(mail.outbox) == 2
    ada = UserFactory(username="ada", email="ada@example.com")
    visitor = signed_in(ada)
    assert visitor.get(old).status_code == 404  # the old token names nothing now
    assert visitor.post(new).status_code == 302
    assert TeamMember.objects.filter(team=team, user=ada).exists()
    assert AuditEvent.objects.filter(action="invitation.resend").count() == 1


def test_the_wrong_account_is_refused_clearly(manager, team):
    invite(signed_in(manager), f"/teams/{team.pk}/invitations/", "ada@example.com")
    link = link_to("ada@example.com")
    mallory = UserFactory(username="mallory", email="mallory@example.com")
    client = signed_in(mallory)
    for response in _spent(client, link):
        if response.request["PATH_INFO"].endswith("sign-up/"):
            assert response.status_code == 302  # signed in: back to the link's page
            continue
        assert response.status_code == 403
        text = response.content.decode()
        assert "sent to ada@example.com" in text and "signed in as mallory" in text
        assert "Sign out" in text
    assert not TeamMember.objects.filter(user=mallory).exists()
    assert Invitation.objects.get().status == "pending"  # still the invitee's to accept


def test_an_unknown_link_is_a_404(db):
    assert Client().get("/invitations/accept/not-a-token/").status_code == 404


def test_inviting_an_address_already_there_sends_nothing(manager, team):
    ada = UserFactory(username="ada", email="ada@example.com")
    TeamMember.objects.create(team=team, user=ada)
    response = invite(signed_in(manager), f"/teams/{team.pk}/invitations/", "ada@example.com")
    assert b"already there: nothing sent" in response.content
    assert not Invitation.objects.exists() and mail.outbox == []


def test_only_managers_instructors_and_staff_invite(manager, team, instructor, course):
    learner = UserFactory(username="someone")
    other_instructor = UserFactory(username="elsewhere")
    urls = [
        f"/teams/{team.pk}/invitations/",
        f"/organisations/{team.organization.slug}/invitations/",
        f"/teach/courses/{course.slug}/invitations/",
    ]
    for user in (learner, other_instructor, instructor, manager):
        client = signed_in(user)
        for url in urls:
            allowed = (user == manager and "teach" not in url) or (
                user == instructor and "teach" in url
            )
            for response in (client.get(url), invite(client, url, "x@example.com")):
                if allowed:
                    assert response.status_code == 200, (user, url)
                else:
                    assert response.status_code == 404, (user, url)
            if allowed:
                Invitation.objects.all().delete()
                mail.outbox.clear()
    assert Invitation.objects.count() == 0 and mail.outbox == []


def test_an_organisation_that_requires_single_sign_on_sends_invitees_to_it(manager, organization):
    from orgs.sso import ProviderSettings, identity_provider_save

    identity_provider_save(
        actor=None,
        organization=organization,
        values=ProviderSettings(
            issuer="https://idp.gpu-cloud.example",
            client_id="c",
            client_secret="s",
            domains=("gpu-cloud.example",),
            required=True,
        ),
    )
    invite(
        signed_in(manager),
        f"/organisations/{organization.slug}/invitations/",
        "e@gpu-cloud.example",
    )
    page = Client().get(link_to("e@gpu-cloud.example")).content.decode()
    assert "Sign in with your company" in page and "Create your account" not in page


def test_an_address_the_account_is_only_changing_to_is_not_yet_its_own(manager, team):
    """allauth keeps an email change as an unconfirmed, non-primary row until its link
    is followed: that address does not let the account accept its invitation."""
    user = UserFactory(username="mover", email="old@example.com")
    EmailAddress.objects.create(user=user, email="new@example.com", verified=False, primary=False)
    invite(signed_in(manager), f"/teams/{team.pk}/invitations/", "new@example.com")
    assert signed_in(user).post(link_to("new@example.com")).status_code == 403
    assert not TeamMember.objects.filter(user=user).exists()
    assert not EmailAddress.objects.get(email="new@example.com").verified


def test_opening_a_good_link_writes_nothing(manager, team):
    """Mail scanners follow links: the page reads, its buttons write."""
    from tests.access.writes import writes_of

    invite(signed_in(manager), f"/teams/{team.pk}/invitations/", "ada@example.com")
    link = link_to("ada@example.com")
    ada = UserFactory(username="ada", email="ada@example.com")
    for client in (Client(), signed_in(ada)):
        response, problems = writes_of(lambda client=client: client.get(link))
        assert response.status_code == 200 and problems == []
    assert Invitation.objects.get().status == "pending"
