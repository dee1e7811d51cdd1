"""An organisation's single sign-on: registering its OIDC identity provider, and the rules
that read it (who may register one, whose address it may vouch for, whose password
no longer signs in).

The provider is one allauth SocialApp of the `openid_connect` provider whose provider_id
is the organisation's slug, so its sign-in starts at /accounts/oidc/<slug>/login/ and
its callback is /accounts/oidc/<slug>/login/callback/ (register that at the provider).
Who may register or change it: staff, or a manager of the organisation when staff have
ticked Organization.managers_manage_sso (a provider vouches for whoever signs in
through it, within its domains, so it is a trust staff grant).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from allauth.socialaccount.models import SocialAccount, SocialApp
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from api_common.service_errors import InvalidInput
from audit.models import AuditEvent
from audit.services import audit_record
from orgs.models import (
    IdentityProvider,
    IdentityProviderDomain,
    Membership,
    Organization,
)

PROVIDER = "openid_connect"
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}
_DOMAIN = re.compile(r"^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$")


@dataclass(frozen=True)
class ProviderSettings:
    issuer: str
    client_id: str
    client_secret: str  # empty on a change: keep the stored one
    domains: tuple[str, ...]
    required: bool


# ---------------------------------------------------------------- reads


def organizations_sso_for(*, user) -> QuerySet[Organization]:
    """The organisations whose single sign-on `user` may register or change."""
    if not user.is_authenticated:
        return Organization.objects.none()
    if user.is_staff:
        return Organization.objects.all()
    return Organization.objects.filter(
        managers_manage_sso=True,
        memberships__user=user,
        memberships__role=Membership.Role.MANAGER,
    ).distinct()


def organization_sso_get_for(*, user, slug: str) -> Organization:
    """The organisation, if `user` may manage its single sign-on; DoesNotExist (a 404)
    otherwise, as if it were not there."""
    return organizations_sso_for(user=user).get(slug=slug)


def identity_provider_for(*, provider_id: str) -> IdentityProvider | None:
    return (
        IdentityProvider.objects.select_related("organization", "app")
        .filter(app__provider=PROVIDER, app__provider_id=provider_id)
        .first()
    )


def identity_provider_of(*, user) -> IdentityProvider | None:
    """The provider the user has signed in through (their first), if any."""
    provider_ids = SocialAccount.objects.filter(user_id=user.pk).values("provider")
    return (
        IdentityProvider.objects.select_related("organization", "app")
        .filter(app__provider=PROVIDER, app__provider_id__in=provider_ids)
        .order_by("pk")
        .first()
    )


def identity_provider_for_email(email: str) -> IdentityProvider | None:
    """The provider whose domains hold the address's domain (exactly), if any."""
    domain = email.rpartition("@")[2].strip().lower()
    row = (
        IdentityProviderDomain.objects.select_related("provider__app", "provider__organization")
        .filter(domain=domain)
        .first()
    )
    return row.provider if row is not None else None


def domains_of(provider: IdentityProvider) -> list[str]:
    return list(provider.domains.values_list("domain", flat=True))


def email_allowed(provider: IdentityProvider, email: str) -> bool:
    domain = email.rpartition("@")[2].lower()
    return bool(domain) and provider.domains.filter(domain=domain).exists()


def sso_required_organization(*, user) -> Organization | None:
    """An organisation the user belongs to that signs its members in only through its
    provider, if any: their password signs nothing in."""
    return (
        Organization.objects.filter(memberships__user=user, identity_provider__required=True)
        .order_by("name")
        .first()
    )


def password_refusal(*, user) -> str | None:
    """What the password sign-in forms tell a member of such an organisation; None for
    everyone else."""
    organization = sso_required_organization(user=user)
    if organization is None:
        return None
    return (
        f"{organization.name} signs its members in through its own identity provider: "
        "use “Sign in with your company” and your work email. For an API token, open "
        "Personal API token after signing in that way."
    )


# ---------------------------------------------------------------- writes


def identity_provider_save(
    *, actor, organization: Organization, values: ProviderSettings
) -> IdentityProvider:
    """Register or change the organisation's provider: its SocialApp, its domains (each
    held by one organisation only) and whether members must use it. Audited, without
    the secret. InvalidInput (naming the field) for an issuer that is not https (http
    only on this machine's loopback, for a provider run beside it), a missing secret on
    first registration, a malformed domain or one another organisation holds."""
    issuer = _issuer(values.issuer)
    domains = _domains(values.domains)
    client_id = values.client_id.strip()
    if not client_id:
        raise InvalidInput("Give the client id the provider issued.", field="client_id")
    with transaction.atomic():
        provider = (
            IdentityProvider.objects.select_for_update()
            .select_related("app")
            .filter(organization=organization)
            .first()
        )
        taken = (
            IdentityProviderDomain.objects.filter(domain__in=domains)
            .exclude(provider=provider)
            .values_list("domain", flat=True)
        )
        if taken:
            raise InvalidInput(
                f"Another organisation signs in {', '.join(sorted(taken))}.", field="domains"
            )
        app = provider.app if provider is not None else SocialApp(provider=PROVIDER)
        if provider is None and not values.client_secret:
            raise InvalidInput("Give the client secret the provider issued.", field="secret")
        app.provider_id = organization.slug
        app.name = organization.name
        app.client_id = client_id
        if values.client_secret:
            app.secret = values.client_secret
        app.settings = {**(app.settings or {}), "server_url": issuer}
        app.save()
        if provider is None:
            provider = IdentityProvider(organization=organization, app=app)
        provider.required = values.required
        provider.updated_at = timezone.now()
        provider.save()
        provider.domains.exclude(domain__in=domains).delete()
        IdentityProviderDomain.objects.bulk_create(
            [IdentityProviderDomain(provider=provider, domain=d) for d in domains],
            ignore_conflicts=True,
        )
        audit_record(
            actor=actor,
            action=AuditEvent.Action.IDENTITY_PROVIDER_SAVE,
            target=organization,
            detail={
                "issuer": issuer,
                "client_id": client_id,
                "secret_changed": bool(values.client_secret),
                "domains": domains,
                "required": values.required,
            },
        )
    return provider


def _issuer(raw: str) -> str:
    issuer = raw.strip().rstrip("/")
    parts = urlsplit(issuer)
    loopback = parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS
    if not parts.hostname or (parts.scheme != "https" and not loopback):
        raise InvalidInput(
            "The issuer is the provider's https:// address, as its discovery document "
            "(/.well-known/openid-configuration) names it.",
            field="issuer",
        )
    if parts.query or parts.fragment or "/.well-known/" in parts.path:
        raise InvalidInput(
            "Give the issuer itself, without /.well-known/..., a query or a fragment.",
            field="issuer",
        )
    return issuer


def _domains(raw) -> list[str]:
    domains = sorted({d.strip().lower().lstrip("@") for d in raw if d.strip()})
    bad = [d for d in domains if not _DOMAIN.match(d)]
    if bad:
        raise InvalidInput(f"Not an email domain: {', '.join(bad)}.", field="domains")
    if not domains:
        raise InvalidInput(
            "Name at least one email domain the provider may sign in.", field="domains"
        )
    return domains
