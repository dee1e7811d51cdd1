"""Registering an organisation's identity provider on its single sign-on page: staff
always, a manager of the organisation only where staff allow it (everyone else: 404);
the issuer must be https (http only on this machine's loopback), each domain belongs to
one organisation, the secret is never shown and an empty one keeps the stored one; each
save is audited without the secret."""

from __future__ import annotations

import pytest
from allauth.socialaccount.models import SocialApp

from audit.models import AuditEvent
from orgs.models import IdentityProvider, Membership
from orgs.services import member_add, organization_create
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
URL = "/organisations/acme/sign-in/"
FORM = {
    "issuer": "https://login.acme.example/realms/acme/",
    "client_id": "burnin",
    "client_secret": "s3cret-from-the-console",
    "domains": "acme.example\nEU.acme.example, @ops.acme.example",
    "required": "on",
}


@pytest.fixture
def acme(db):
    return organization_create(slug="acme", name="Acme Corp")


@pytest.fixture
def manager(acme):
    user = UserFactory(username="boss")
    member_add(organization=acme, user=user, role=Membership.Role.MANAGER)
    return user


def test_staff_register_a_provider(client, acme):
    client.force_login(UserFactory(username="root", is_staff=True))
    page = client.get(URL).content.decode()
    assert "http://testserver/accounts/oidc/acme/login/callback/" in page
    saved = client.post(URL, FORM)
    assert saved.status_code == 302 and saved["Location"] == URL
    provider = IdentityProvider.objects.get(organization=acme)
    app = provider.app
    assert (app.provider, app.provider_id, app.name) == ("openid_connect", "acme", "Acme Corp")
    assert app.settings["server_url"] == "https://login.acme.example/realms/acme"
    assert app.client_id == "burnin" and app.secret == "s3cret-from-the-console"
    assert provider.required
    assert sorted(provider.domains.values_list("domain", flat=True)) == [
        "acme.example",
        "eu.acme.example",
        "ops.acme.example",
    ]
    event = AuditEvent.objects.get(action="identity_provider.save")
    assert event.actor_label == "root" and event.detail["secret_changed"] is True
    assert "s3cret" not in str(event.detail)
    # The page never shows the secret; an empty one keeps it.
    page = client.get(URL).content.decode()
    assert "s3cret" not in page and "burnin" in page
    client.post(URL, {**FORM, "client_secret": "", "required": ""})
    provider.refresh_from_db()
    assert provider.app.secret == "s3cret-from-the-console" and not provider.required
    assert SocialApp.objects.count() == 1


def test_a_manager_registers_only_where_staff_allow_it(client, acme, manager):
    client.force_login(manager)
    assert client.get(URL).status_code == 404
    assert client.post(URL, FORM).status_code == 404
    assert not IdentityProvider.objects.exists()
    assert "Single sign-on" not in client.get("/teams/").content.decode()
    acme.managers_manage_sso = True
    acme.save()
    assert 'href="/organisations/acme/sign-in/"' in client.get("/teams/").content.decode()
    assert client.post(URL, FORM).status_code == 302
    assert IdentityProvider.objects.get().organization == acme


def test_another_organisations_manager_and_a_member_get_404(client, acme):
    other = organization_create(slug="other", name="Other")
    other.managers_manage_sso = True
    other.save()
    stranger = UserFactory(username="stranger")
    member_add(organization=other, user=stranger, role=Membership.Role.MANAGER)
    plain = UserFactory(username="plain")
    member_add(organization=acme, user=plain)
    for user in (stranger, plain):
        client.force_login(user)
        assert client.get(URL).status_code == 404


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("issuer", "http://login.acme.example", "https://"),
        ("issuer", "https://login.acme.example/.well-known/openid-configuration", "itself"),
        ("domains", "acme.example\nnot_a_domain", "Not an email domain: not_a_domain"),
        ("domains", "acme.example\n-acme.example", "Not an email domain: -acme.example"),
        ("domains", " , ", "at least one email domain"),
        ("client_secret", "", "client secret"),
    ],
)
def test_bad_values_are_named_and_nothing_is_saved(client, acme, field, value, says):
    client.force_login(UserFactory(username="root", is_staff=True))
    page = client.post(URL, {**FORM, field: value})
    assert page.status_code == 200 and says in page.content.decode()
    assert not IdentityProvider.objects.exists() and not SocialApp.objects.exists()
    assert not AuditEvent.objects.filter(action="identity_provider.save").exists()


def test_a_domain_belongs_to_one_organisation(client, acme):
    client.force_login(UserFactory(username="root", is_staff=True))
    client.post(URL, FORM)
    organization_create(slug="rival", name="Rival")
    page = client.post("/organisations/rival/sign-in/", {**FORM, "domains": "ACME.example"})
    assert "Another organisation signs in acme.example" in page.content.decode()
    assert IdentityProvider.objects.count() == 1


def test_a_loopback_provider_may_be_plain_http(client, acme):
    client.force_login(UserFactory(username="root", is_staff=True))
    client.post(URL, {**FORM, "issuer": "http://127.0.0.1:8080/o"})
    assert IdentityProvider.objects.get().app.settings["server_url"] == "http://127.0.0.1:8080/o"
