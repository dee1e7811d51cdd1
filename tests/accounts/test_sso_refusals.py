"""Every way a single sign-on is refused, against the live provider: the token names
another issuer, the provider's discovery document names another issuer than the one
registered, the token is for another audience, it has expired, it is signed by a key
the provider does not publish, the address is outside the organisation's domains, the
provider has not verified it, or it is an existing account's that is not the
organisation's member. Each is the refusal page (403), signs nobody in, and writes
nothing: every table's row count (but the session's, which holds the sign-on's state)
is as it was before the sign-on started, and no account, provider account, address or
membership is made."""

from __future__ import annotations

import pytest
from allauth.socialaccount.models import SocialAccount
from django.contrib.auth import get_user_model

from orgs.models import IdentityProvider, IdentityProviderDomain
from orgs.sso import ProviderSettings, identity_provider_save
from tests.access.writes import row_counts
from tests.accounts.sso import register, sign_on
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
User = get_user_model()
TOKEN = "did not check out"

CASES = {
    # case: (provider client, employee, registration's issuer path, what the page says)
    "the token names another issuer": ("wrong-issuer", "alice", "/o", TOKEN),
    "the discovery document names another issuer": (
        "good",
        "alice",
        "/impostor",
        "discovery document names another issuer",
    ),
    "the token is for another audience": ("wrong-audience", "alice", "/o", TOKEN),
    "the token has expired": ("expired", "alice", "/o", TOKEN),
    "the token is signed by an unpublished key": ("foreign-key", "alice", "/o", TOKEN),
    "the address is outside the domains": ("good", "mallory", "/o", "outside the organisation"),
    "the address is not verified": ("good", "carol", "/o", "has not verified the address"),
}


def counts() -> dict[str, int]:
    return {t: n for t, n in row_counts().items() if t != "django_session"}


def assert_refused_and_nothing_written(client, provider, employee, before, says):
    done = sign_on(client, provider, employee)
    page = done.finish
    assert page.status_code == 403, page.content[:500]
    html = page.content.decode()
    assert "<h1>Sign-in refused</h1>" in html and says in html and "Nothing was saved" in html
    assert "_auth_user_id" not in client.session
    assert counts() == before
    return done


@pytest.mark.parametrize("case", list(CASES))
def test_a_refused_sign_on_writes_nothing(client, provider, case, caplog):
    fault, employee, issuer_path, says = CASES[case]
    register(provider, client=fault, issuer=provider.url + issuer_path)
    before = counts()
    assert_refused_and_nothing_written(client, provider, employee, before, says)
    assert not User.objects.filter(email__endswith=".example").exists()
    assert not SocialAccount.objects.exists()
    assert any("single sign-on refused" in r.getMessage() for r in caplog.records)


def test_the_same_provider_signs_in_once_the_fault_is_gone(client, provider):
    """The refusals are the faults', not the set-up's: the good client, the right issuer
    and a verified address inside the domains sign in."""
    register(provider)
    assert sign_on(client, provider, "alice").finish.status_code == 302


def test_an_existing_account_outside_the_organisation_is_not_taken_over(client, provider):
    """A provider vouches for its domains, but an account that is already here and is not
    the organisation's member is not joined to it by its address: refused."""
    register(provider)
    owner = UserFactory(username="bob-elsewhere", email="bob@acme.example")
    before = counts()
    assert_refused_and_nothing_written(client, provider, "bob", before, "already uses")
    assert not SocialAccount.objects.filter(user=owner).exists()


def test_a_returning_member_outside_the_domains_now_is_refused_and_nothing_changes(
    client, provider
):
    organization = register(provider)
    sign_on(client, provider, "alice")
    client.logout()
    account = SocialAccount.objects.get()
    identity_provider_save(
        actor=None,
        organization=organization,
        values=ProviderSettings(
            issuer=provider.issuer,
            client_id="burnin-acme",
            client_secret="",
            domains=("acme-corp.example",),
            required=False,
        ),
    )
    assert list(IdentityProviderDomain.objects.values_list("domain", flat=True)) == [
        "acme-corp.example"
    ]
    before = counts()
    assert_refused_and_nothing_written(client, provider, "alice", before, "outside")
    account.refresh_from_db()
    assert account.last_login == SocialAccount.objects.get().last_login
    assert IdentityProvider.objects.get().app.secret == "acme-secret"  # kept: empty is "keep"


def test_a_provider_that_does_not_answer_is_a_502_page_not_a_500(client, provider):
    register(provider, issuer="http://127.0.0.1:9/o")  # the discard port: refused at once
    response = client.post("/accounts/oidc/acme/login/")
    assert response.status_code == 502
    assert "could not be reached" in response.content.decode()
