"""LTI Dynamic Registration (IMS LTI Dynamic Registration 1.0): an LMS administrator
pastes a one-time URL that Burn-in staff minted, and the LMS and Burn-in exchange their
configurations.

The LMS opens the URL with `openid_configuration` (where its OpenID configuration is)
and, usually, `registration_token`. Burn-in fetches that configuration (https only, no
redirects, a bounded body), checks that its issuer lives on the URL's host (or, as
hosted Canvas's does, on a sibling under the same parent domain) and that it
has what an LTI 1.3 launch needs, posts the tool's registration (OpenID Connect client
registration with the LTI tool configuration: login, launch and key set URLs, the
resource-link and deep-linking messages, the AGS and NRPS scopes) to the platform's
`registration_endpoint` with the token, and then stores django-lti's registration and
deployment with the courses the URL was minted for (DeploymentCourse: the same rows the
admin's manual registration writes). The URL is spent only then.

Every refusal (an unknown, expired, revoked or spent URL, a configuration that does not
check out, a platform that cannot be reached or refuses) raises Refused with a reason
for the administrator and has written nothing: the URL can be tried again once the cause
is fixed (a spent URL excepted).

Only a SHA-256 of the URL's secret is stored; the URL is shown once, when minted.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import secrets
from collections.abc import Callable, Iterable
from urllib.parse import urlsplit

import requests
from django.db import transaction
from django.utils import timezone
from lti_tool.models import LtiDeployment, LtiRegistration

from api_common.service_errors import NotPermitted
from lti.bounded_read import BodyRefused, read_body
from lti.models import DeploymentCourse, RegistrationInvite

DEFAULT_DAYS = 7
MAX_DAYS = 90
TIMEOUT_S = 10
MAX_BODY = 256 * 1024
TOTAL_S = 20  # the whole answer (lti/bounded_read.py), where TIMEOUT_S bounds each wait
PLATFORM_CONFIG = "https://purl.imsglobal.org/spec/lti-platform-configuration"
TOOL_CONFIG = "https://purl.imsglobal.org/spec/lti-tool-configuration"
SCOPES = (
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
    "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly",
)
CLAIMS = ("iss", "sub", "name", "given_name", "family_name", "email")
ENDPOINTS = ("authorization_endpoint", "registration_endpoint", "token_endpoint", "jwks_uri")

# The HTTP client the registration talks to the platform with (tests mount a test
# platform on it).
http = requests.Session()


class Refused(Exception):
    """A registration that cannot go ahead; `reason` is for the LMS administrator."""

    def __init__(self, reason: str, status: int = 400):
        super().__init__(reason)
        self.reason, self.status = reason, status


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


# --- minting ---------------------------------------------------------------------------


def invite_prepare(invite: RegistrationInvite, *, user, days: int = DEFAULT_DAYS) -> str:
    """Fill a new invite's secret, expiry and author (the caller saves it and sets its
    courses); returns the secret, to be shown once. Staff only."""
    if not user.is_staff:
        raise NotPermitted("Only staff mint registration URLs.")
    if not 1 <= days <= MAX_DAYS:
        raise ValueError(f"a registration URL lasts 1 to {MAX_DAYS} days")
    token = secrets.token_urlsafe(32)
    invite.token_hash = _hash(token)
    invite.expires_at = timezone.now() + datetime.timedelta(days=days)
    invite.created_by = user
    return token


def invite_mint(
    *, user, label: str, courses: Iterable, days: int = DEFAULT_DAYS
) -> tuple[RegistrationInvite, str]:
    """A new registration URL's invite and its secret."""
    invite = RegistrationInvite(label=label)
    token = invite_prepare(invite, user=user, days=days)
    with transaction.atomic():
        invite.save()
        invite.courses.set(list(courses))
    return invite, token


def invite_revoke(*, user, invite: RegistrationInvite) -> None:
    if not user.is_staff:
        raise NotPermitted("Only staff revoke registration URLs.")
    if invite.revoked_at is None:
        invite.revoked_at = timezone.now()
        invite.save(update_fields=["revoked_at"])


def invite_for(token: str) -> RegistrationInvite:
    """The usable invite of a URL's secret, or Refused saying why it is not."""
    invite = RegistrationInvite.objects.filter(token_hash=_hash(token)).first()
    if invite is None:
        raise Refused("This registration URL is not one Burn-in issued.", 404)
    if invite.used_at is not None:
        raise Refused("This registration URL has already been used; ask for a new one.", 410)
    if invite.revoked_at is not None:
        raise Refused("This registration URL was revoked; ask for a new one.", 410)
    if invite.expires_at <= timezone.now():
        raise Refused("This registration URL has expired; ask for a new one.", 410)
    return invite


# --- talking to the platform -----------------------------------------------------------


def _https(url: object, what: str) -> str:
    if not isinstance(url, str) or urlsplit(url).scheme != "https" or not urlsplit(url).hostname:
        raise Refused(f"The platform's {what} is not an https URL.")
    return url


def _json(response: requests.Response, what: str) -> dict:
    try:
        body = read_body(response, max_bytes=MAX_BODY, seconds=TOTAL_S)
    except BodyRefused as exc:
        raise Refused(f"The platform's {what} is {exc}.", 502) from None
    except requests.RequestException as exc:
        raise Refused(
            f"The platform's {what} could not be read ({type(exc).__name__}).", 502
        ) from None
    try:
        data = json.loads(body)
    except ValueError:
        raise Refused(f"The platform's {what} is not JSON.", 502) from None
    if not isinstance(data, dict):
        raise Refused(f"The platform's {what} is not a JSON object.", 502)
    return data


def same_site(issuer_host: str, url_host: str) -> bool:
    """Whether a configuration fetched from `url_host` may speak for `issuer_host`: the
    same host, or a sibling under the issuer's parent domain. The second is how hosted
    Canvas works: every school's Canvas (school.instructure.com) serves a configuration
    whose issuer is https://canvas.instructure.com. A parent of one label (`com`) never
    counts."""
    if issuer_host == url_host:
        return True
    labels = issuer_host.split(".")
    parent = ".".join(labels[1:])
    return len(labels) >= 3 and url_host.endswith("." + parent)


def platform_configuration(url: str) -> dict:
    """The platform's OpenID configuration, checked (Refused names what is wrong)."""
    _https(url, "openid_configuration URL")
    try:
        response = http.get(
            url,
            timeout=TIMEOUT_S,
            allow_redirects=False,
            stream=True,
            headers={"Accept": "application/json"},
        )
    except requests.RequestException as exc:
        raise Refused(f"The platform's configuration could not be fetched ({exc}).", 502) from None
    if response.status_code != 200:
        raise Refused(f"The platform's configuration answered {response.status_code}.", 502)
    config = _json(response, "configuration")
    issuer = _https(config.get("issuer"), "issuer")
    if not same_site(urlsplit(issuer).hostname, urlsplit(url).hostname):
        raise Refused(
            f"The configuration's issuer ({issuer}) is not on the host it was fetched from "
            f"({urlsplit(url).hostname})."
        )
    for field in ENDPOINTS:
        _https(config.get(field), field)
    for field, value in (
        ("token_endpoint_auth_methods_supported", "private_key_jwt"),
        ("id_token_signing_alg_values_supported", "RS256"),
    ):
        if value not in (config.get(field) or ()):
            raise Refused(f"The configuration's {field} does not include {value}.")
    lti = config.get(PLATFORM_CONFIG)
    if not isinstance(lti, dict) or not isinstance(lti.get("product_family_code"), str):
        raise Refused(f"The configuration has no {PLATFORM_CONFIG} with a product_family_code.")
    return config


def tool_registration(absolute: Callable[[str], str], config: dict) -> dict:
    """The tool's registration request (OpenID Connect client registration with the LTI
    tool configuration), its URLs made absolute by `absolute` (a URL name to a URL)."""
    launch = absolute("lti-launch")
    supported = config.get("scopes_supported")
    offered = {s for s in supported if isinstance(s, str)} if isinstance(supported, list) else set()
    scopes = [s for s in SCOPES if not offered or s in offered]
    return {
        "application_type": "web",
        "response_types": ["id_token"],
        "grant_types": ["implicit", "client_credentials"],
        "initiate_login_uri": absolute("lti-login"),
        "redirect_uris": [launch],
        "client_name": "Burn-in",
        "jwks_uri": absolute("lti-jwks"),
        "token_endpoint_auth_method": "private_key_jwt",
        "scope": " ".join(scopes),
        TOOL_CONFIG: {
            "domain": urlsplit(launch).netloc,
            "target_link_uri": launch,
            "claims": list(CLAIMS),
            "messages": [
                {"type": "LtiResourceLinkRequest", "target_link_uri": launch},
                {
                    "type": "LtiDeepLinkingRequest",
                    "target_link_uri": launch,
                    "label": "Burn-in quiz",
                },
            ],  # fmt: skip
        },
    }


def _post_registration(config: dict, body: dict, registration_token: str | None) -> dict:
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if registration_token:
        headers["Authorization"] = f"Bearer {registration_token}"
    try:
        response = http.post(
            config["registration_endpoint"],
            json=body,
            headers=headers,
            timeout=TIMEOUT_S,
            allow_redirects=False,
            stream=True,
        )
    except requests.RequestException as exc:
        raise Refused(f"The platform could not be reached to register ({exc}).", 502) from None
    if response.status_code not in (200, 201):
        detail = next(response.iter_content(300), b"").decode("utf-8", "replace").strip()
        raise Refused(
            f"The platform refused the registration ({response.status_code})"
            + (f": {detail}" if detail else ""),
            502,
        )
    answer = _json(response, "registration answer")
    client_id = answer.get("client_id")
    deployment_id = (answer.get(TOOL_CONFIG) or {}).get("deployment_id")
    if not isinstance(client_id, str) or not client_id:
        raise Refused("The platform's registration answer has no client_id.", 502)
    if not isinstance(deployment_id, str) or not deployment_id:
        raise Refused("The platform's registration answer has no deployment_id.", 502)
    return {"client_id": client_id, "deployment_id": deployment_id}


# --- the whole exchange ----------------------------------------------------------------


def register(
    *,
    token: str,
    openid_configuration: str | None,
    registration_token: str | None,
    absolute: Callable[[str], str],
) -> LtiRegistration:
    """Register the LMS that opened the URL; Refused (nothing written) otherwise."""
    invite = invite_for(token)
    if not openid_configuration:
        raise Refused(
            "The LMS did not send openid_configuration: paste the URL into the LMS's "
            'dynamic registration ("register by URL") field, not into a browser.'
        )
    config = platform_configuration(openid_configuration)
    issued = _post_registration(config, tool_registration(absolute, config), registration_token)
    with transaction.atomic():
        invite = RegistrationInvite.objects.select_for_update().get(pk=invite.pk)
        invite_for(token)  # a racing use of the same URL loses here
        if LtiRegistration.objects.filter(
            issuer=config["issuer"], client_id=issued["client_id"]
        ).exists():
            raise Refused("That platform already has a registration with this client_id.", 409)
        family = config[PLATFORM_CONFIG]["product_family_code"]
        registration = LtiRegistration.objects.create(
            name=f"{invite.label} ({family})"[:255],
            issuer=config["issuer"],
            client_id=issued["client_id"],
            auth_url=config["authorization_endpoint"],
            token_url=config["token_endpoint"],
            keyset_url=config["jwks_uri"],
            is_active=True,
        )
        deployment = LtiDeployment.objects.create(
            registration=registration, deployment_id=issued["deployment_id"], is_active=True
        )
        DeploymentCourse.objects.bulk_create(
            DeploymentCourse(deployment=deployment, course=course)
            for course in invite.courses.all()
        )
        invite.used_at = timezone.now()
        invite.registration = registration
        invite.save(update_fields=["used_at", "registration"])
    return registration
