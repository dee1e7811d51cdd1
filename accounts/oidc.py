"""Single sign-on through an organisation's OIDC provider: allauth's `openid_connect`
provider, with its adapter made stricter in three ways, all before anything is read from
or written to the database for the person signing in.

- The discovery document must name the issuer the organisation registered (OpenID
  Connect Discovery 1.0, section 4.3): allauth checks the ID token's `iss` against the
  document it fetched, so without this a provider at the registered address could speak
  for another issuer.
- The ID token's RS256 signature is always checked against the provider's JWKS. allauth
  skips it for a token fetched from the token endpoint (which TLS vouches for); a token
  endpoint reached over a proxy, or plain http on a developer's machine, proves nothing.
  allauth checks `aud` (the client id), `exp` and `iss` either way.
- The address must be verified by the provider (`email_verified` true) and within the
  organisation's domains.

Each refusal is the refusal page (accounts.adapters.refuse_sign_on); the views are
allauth's own with this adapter, on allauth's paths and names.
"""

from __future__ import annotations

import requests
from allauth.socialaccount.internal import jwtkit
from allauth.socialaccount.models import SocialApp
from allauth.socialaccount.providers.oauth2.views import OAuth2CallbackView, OAuth2LoginView
from allauth.socialaccount.providers.openid_connect.views import OpenIDConnectOAuth2Adapter
from django.http import Http404

from accounts.adapters import refusal_page, refuse_sign_on
from orgs.sso import email_allowed, identity_provider_for


def _same_issuer(a: str, b: str) -> bool:
    return a.rstrip("/") == b.rstrip("/")


class CompanyOIDCAdapter(OpenIDConnectOAuth2Adapter):
    def complete_login(self, request, app, token, **kwargs):
        provider = identity_provider_for(provider_id=app.provider_id)
        organization = provider.organization if provider is not None else None
        registered = app.settings.get("server_url", "")
        discovered = str(self.openid_config.get("issuer", ""))
        if provider is None or not _same_issuer(registered, discovered):
            refuse_sign_on(
                request,
                "the provider's discovery document names another issuer than the one registered",
                organization=organization,
                detail=f"{discovered!r}, registered {registered!r}",
            )
        login = super().complete_login(request, app, token, **kwargs)
        addresses = login.email_addresses
        if not addresses:
            refuse_sign_on(request, "the provider sent no email address", organization=organization)
        address = addresses[0]
        if not address.verified:
            refuse_sign_on(
                request, "the provider has not verified the address", organization=organization
            )
        if not email_allowed(provider, address.email):
            refuse_sign_on(
                request,
                "the address is outside the organisation's email domains",
                organization=organization,
            )
        return login

    def _decode_id_token(self, app: SocialApp, id_token: str) -> dict:
        return jwtkit.verify_and_decode(
            credential=id_token,
            keys_url=self.openid_config["jwks_uri"],
            issuer=self.openid_config["issuer"],
            audience=app.client_id,
            lookup_kid=jwtkit.lookup_kid_jwk,
            verify_signature=True,
        )


def login(request, provider_id: str):
    """Start a sign-on: GET a page that says where it goes, POST to go (allauth's
    SOCIALACCOUNT_LOGIN_ON_GET is off). A provider whose discovery document cannot be
    read is a 502 page, not a 500. allauth takes every method but GET as "go", so a HEAD
    is answered as the GET it stands for (a read starts nothing)."""
    if request.method == "HEAD":
        request.method = "GET"
    try:
        view = OAuth2LoginView.adapter_view(CompanyOIDCAdapter(request, provider_id))
        return view(request)
    except SocialApp.DoesNotExist:
        raise Http404 from None
    except (requests.RequestException, ValueError, KeyError) as err:
        found = identity_provider_for(provider_id=provider_id)
        return _unreachable(request, found, err)


def callback(request, provider_id: str):
    try:
        view = OAuth2CallbackView.adapter_view(CompanyOIDCAdapter(request, provider_id))
        return view(request)
    except SocialApp.DoesNotExist:
        raise Http404 from None
    except (ValueError, KeyError) as err:
        found = identity_provider_for(provider_id=provider_id)
        return _unreachable(request, found, err)


def _unreachable(request, provider, err):
    organization = provider.organization if provider is not None else None
    reason = "the provider could not be reached, or its discovery document read"
    return refusal_page(request, reason, organization=organization, status=502, detail=repr(err))
