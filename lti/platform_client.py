"""Calling an LMS's services (Assignment and Grade Services, Names and Role Provisioning)
with an OAuth2 access token obtained by a signed JWT assertion (IMS Security Framework
1.0, client_credentials with private_key_jwt).

Ours rather than pylti1p3's ServiceConnector, which sends no timeout, keeps tokens only
for the life of one connector, never refetches a refused token and raises one exception
class for every failure. Here every call has a timeout; tokens are cached per
registration (client_id and token URL) and scope set in Django's cache until shortly
before they expire; a 401 drops the cached token and refetches once; and a failure is
Transient (timeouts, connection errors, 429, 5xx: worth retrying later) or Permanent
(every other 4xx, e.g. 422 "user not in course": retrying cannot help, a person must
look).
"""

from __future__ import annotations

import hashlib
import time
import uuid

import jwt
import requests
from django.core.cache import cache
from lti_tool.models import LtiRegistration

from lti.bounded_read import TooLarge, TooSlow, read_body

SCOPE_SCORE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
SCOPE_LINEITEM = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
SCOPE_LINEITEM_READ = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly"
SCOPE_NRPS = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"

TIMEOUT = (5, 15)  # seconds: connect, and each wait for the answer's next bytes
MAX_ANSWER_BYTES = 8 * 2**20  # an answer's body (a roster page of members is the largest)
ANSWER_SECONDS = 60  # the whole answer (lti/bounded_read.py)
ASSERTION_LIFETIME = 60  # seconds
TOKEN_MARGIN = 60  # seconds before the token's expiry that we stop using it
USER_AGENT = "Burn-in LTI tool"

_session = requests.Session()
_session.headers["User-Agent"] = USER_AGENT


def session() -> requests.Session:
    """The one HTTP session LMS calls go through (tests mount a transport adapter on it)."""
    return _session


class PlatformError(Exception):
    def __init__(self, reason: str, status: int | None = None):
        super().__init__(reason)
        self.reason = reason
        self.status = status


class Transient(PlatformError):
    """Worth retrying later: the LMS was down, slow, or asked us to wait."""


class Permanent(PlatformError):
    """Retrying the same request cannot help (a 4xx other than 401 and 429)."""


def _read(response: requests.Response, what: str) -> None:
    """The answer's body read within MAX_ANSWER_BYTES and ANSWER_SECONDS: too large is
    Permanent (the same request gets the same answer), too slow or cut off Transient."""
    try:
        read_body(response, max_bytes=MAX_ANSWER_BYTES, seconds=ANSWER_SECONDS)
    except TooLarge as exc:
        raise Permanent(f"{what}: the answer is {exc}", response.status_code) from None
    except (TooSlow, requests.RequestException) as exc:
        raise Transient(f"{what}: the answer was {exc or type(exc).__name__}") from None


def _failure(response: requests.Response, what: str) -> PlatformError:
    detail = response.text[:300].strip()
    reason = f"{what}: HTTP {response.status_code}" + (f" {detail}" if detail else "")
    if response.status_code == 429 or response.status_code >= 500:
        return Transient(reason, response.status_code)
    return Permanent(reason, response.status_code)


def client_assertion(registration: LtiRegistration) -> str:
    """iss = sub = our client_id, aud = the token endpoint (or the registered audience),
    a unique jti and a one-minute life. Signed as deep-linking responses are: with the
    registration's own key where it has one, else our newest active key, under the kid
    we publish at /lti/jwks/."""
    tool = registration.to_registration()
    kid = tool.get_kid()
    now = int(time.time())
    claims = {
        "iss": registration.client_id,
        "sub": registration.client_id,
        "aud": registration.audience or registration.token_url,
        "iat": now,
        "exp": now + ASSERTION_LIFETIME,
        "jti": f"burnin-{uuid.uuid4()}",
    }
    headers = {"kid": kid} if kid else None
    return jwt.encode(claims, tool.get_tool_private_key(), algorithm="RS256", headers=headers)


def _token_key(registration: LtiRegistration, scopes: tuple[str, ...]) -> str:
    raw = "\n".join([registration.client_id, registration.token_url, *scopes])
    return "lti:token:" + hashlib.sha256(raw.encode()).hexdigest()


def access_token(registration: LtiRegistration, scopes, *, fresh: bool = False) -> str:
    """A bearer token for these scopes, from the cache unless `fresh`."""
    scopes = tuple(sorted(set(scopes)))
    key = _token_key(registration, scopes)
    if not fresh and (token := cache.get(key)):
        return token
    data = {
        "grant_type": "client_credentials",
        "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
        "client_assertion": client_assertion(registration),
        "scope": " ".join(scopes),
    }
    try:
        response = session().post(registration.token_url, data=data, timeout=TIMEOUT, stream=True)
    except requests.RequestException as exc:
        raise Transient(f"token request: {type(exc).__name__}") from exc
    _read(response, "token request")
    if not response.ok:
        raise _failure(response, "token request")
    try:
        body = response.json()
        token = body["access_token"]
        expires_in = int(body.get("expires_in", 3600))
    except (ValueError, KeyError, TypeError) as exc:
        raise Permanent("token request: the LMS answered without an access_token") from exc
    cache.set(key, token, max(expires_in - TOKEN_MARGIN, 1))
    return token


def call(
    registration: LtiRegistration,
    method: str,
    url: str,
    *,
    scopes,
    what: str,
    json=None,
    params=None,
    content_type: str | None = None,
    accept: str = "application/json",
) -> requests.Response:
    """One service request with a bearer token; a 401 refetches the token once. Returns
    the 2xx response or raises Transient / Permanent naming `what` was attempted."""
    response = None
    for fresh in (False, True):
        headers = {
            "Authorization": f"Bearer {access_token(registration, scopes, fresh=fresh)}",
            "Accept": accept,
        }
        if content_type:
            headers["Content-Type"] = content_type
        try:
            response = session().request(
                method, url, json=json, params=params, headers=headers, timeout=TIMEOUT, stream=True
            )
        except requests.RequestException as exc:
            raise Transient(f"{what}: {type(exc).__name__}") from exc
        _read(response, what)
        if response.status_code != 401:
            break
    if not response.ok:
        raise _failure(response, what)
    return response
