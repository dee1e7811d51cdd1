"""The hardened launch: pylti1p3's DjangoMessageLaunch with its gaps closed.

Out of the box pylti1p3 2.0.0 accepts an id_token without exp or iat, several audiences
without azp, a foreign azp, a replayed form (its state check passes again once a state was
used with the same token, cookies or not), a reused nonce and a foreign target_link_uri;
an unknown iss or aud is a 500; a rotated platform key fails until its cache expires
(`../shared/spec/lti-checklist.md`). `HardenedMessageLaunch.validate()` replaces its
chain so that every check runs, in order, before anything is written to the database,
and every failure is an LtiException (the view turns it into a 403).

The nonce is used up last, after the signature and every claim check, so a forged token
cannot burn a real learner's nonce.
"""

from __future__ import annotations

import json
import time
from urllib.parse import urlsplit

import jwt
from django.conf import settings
from django.core.cache import cache
from jwt.algorithms import RSAAlgorithm
from pylti1p3.contrib.django.message_launch import DjangoMessageLaunch
from pylti1p3.exception import LtiException

from lti.keysets import platform_key
from lti.oidc import login_nonce_key

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
DL_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
RESOURCE_LINK_REQUEST = "LtiResourceLinkRequest"
DEEP_LINKING_REQUEST = "LtiDeepLinkingRequest"
# Claims we copy into django-lti's rows: a string longer than the column is refused here
# rather than failing (PostgreSQL) or being silently cut after the launch was accepted.
MAX_ID = 255
# A token names its audiences (OIDC Core 2: ours, and any other it is for); platforms send
# one or two. Each is looked up before the signature is checked, so the list is bounded.
MAX_AUDIENCES = 10


def _short_str(value, what: str) -> str:
    if not isinstance(value, str) or not value or len(value) > MAX_ID:
        raise LtiException(f"{what} is missing or not a short string.")
    return value


class HardenedMessageLaunch(DjangoMessageLaunch):
    """Validates a launch posted to `launch_url` for one of `message_types`."""

    def __init__(self, request, tool_config, *, launch_url: str = "", message_types=(), **kwargs):
        # The defaults serve `from_cache` (a restored launch is never validated again).
        super().__init__(request, tool_config, **kwargs)
        self._launch_url = launch_url
        self._message_types = tuple(message_types)

    # pylti1p3 reads the client id as aud[0]; ours must be *in* aud, checked below. A
    # launch restored from the session (deep linking) was validated: with several
    # audiences its azp was required and is ours.
    def get_client_id(self) -> str:
        body = self._jwt.get("body", {})
        aud = body.get("aud")
        if isinstance(aud, str):
            return aud
        if isinstance(aud, list) and aud and all(isinstance(a, str) for a in aud):
            return self._tool_config_client_id or body.get("azp") or aud[0]
        raise LtiException("aud is missing or malformed.")

    _tool_config_client_id: str | None = None

    def validate(self):
        if self._restored:
            raise LtiException("Can't validate restored launch")
        self._validated = True
        try:
            self.validate_state()
            self.validate_jwt_format()
            self._registration_for_audience()
            self.validate_jwt_signature()
            self._validate_audience()
            self._validate_target_link_uri()
            self.validate_deployment()
            self._validate_message()
            self.validate_nonce()
        except LtiException:
            self._validated = False
            raise
        except Exception as exc:  # a malformed claim must not become a 500
            self._validated = False
            raise LtiException(f"Malformed launch: {type(exc).__name__}") from exc
        return self

    def validate_state(self):
        """The state must come back both in the form and in the cookie our login set: no
        fallback to "this state was already used with this token" (pylti1p3's), which
        lets the same form be replayed without cookies."""
        state = self._get_request_param("state")
        if not state or not isinstance(state, str):
            raise LtiException("Missing state param")
        if self._cookie_service.get_cookie(state) != state:
            raise LtiException("State cookie missing or not matching")
        return self

    def validate_jwt_format(self):
        super().validate_jwt_format()
        header, body = self._jwt.get("header"), self._jwt.get("body")
        if not isinstance(header, dict) or not isinstance(body, dict):
            raise LtiException("id_token header and body must be JSON objects")
        return self

    def _registration_for_audience(self):
        """Find the registration for iss and whichever aud entry is a client id we know."""
        body = self._jwt["body"]
        iss, aud = body.get("iss"), body.get("aud")
        if not isinstance(iss, str) or not iss:
            raise LtiException('"iss" is empty')
        candidates = [aud] if isinstance(aud, str) else aud if isinstance(aud, list) else []
        if len(candidates) > MAX_AUDIENCES:
            # Read before the signature is checked, one registration lookup an entry: a
            # token of 200,000 entries held a worker 67 s for anyone who posted it.
            raise LtiException(f'"aud" lists more than {MAX_AUDIENCES} audiences')
        for client_id in dict.fromkeys(c for c in candidates if isinstance(c, str)):
            registration = self._tool_config.find_registration_by_params(iss, client_id)
            if registration is not None:
                self._registration = registration
                self._tool_config_client_id = client_id
                return
        raise LtiException("No registration for this iss and aud.")

    def validate_jwt_signature(self):
        """RS256 only, by the key the platform publishes under the token's kid; exp and
        iat required, checked against the clock; iss and aud verified by PyJWT."""
        header = self._jwt["header"]
        if header.get("alg") != "RS256":
            raise LtiException("id_token must be signed with RS256")
        kid = header.get("kid")
        if not isinstance(kid, str) or not kid:
            raise LtiException("id_token has no kid")
        jwk = platform_key(self._registration.get_key_set_url(), kid)
        if jwk.get("kty") != "RSA" or jwk.get("alg", "RS256") != "RS256":
            raise LtiException("Platform key is not an RS256 key")
        public_key = RSAAlgorithm.from_jwk(json.dumps(jwk))
        leeway = settings.LTI_CLOCK_LEEWAY_SECONDS
        try:
            claims = jwt.decode(
                self._get_id_token(),
                public_key,
                algorithms=["RS256"],
                audience=self._tool_config_client_id,
                issuer=self._registration.get_issuer(),
                leeway=leeway,
                options={"require": ["exp", "iat", "iss", "aud"]},
            )
        except jwt.InvalidTokenError as exc:
            raise LtiException(f"Can't decode id_token: {exc}") from exc
        if not isinstance(claims["iat"], int | float) or claims["iat"] > time.time() + leeway:
            raise LtiException("id_token issued in the future")
        return self

    def _validate_audience(self):
        body = self._jwt["body"]
        ours = self._tool_config_client_id
        several = isinstance(body["aud"], list) and len(body["aud"]) > 1
        azp = body.get("azp")
        if several and azp is None:
            raise LtiException("Several audiences and no azp")
        if azp is not None and azp != ours:
            raise LtiException("azp is not this tool")

    def _validate_target_link_uri(self):
        target = self._jwt["body"].get(CLAIM + "target_link_uri")
        if not isinstance(target, str):
            raise LtiException("target_link_uri missing")
        ours, theirs = urlsplit(self._launch_url), urlsplit(target)
        if (theirs.scheme, theirs.netloc) != (ours.scheme, ours.netloc) or not (
            theirs.path.startswith(ours.path)
        ):
            raise LtiException("target_link_uri is not this tool")

    def validate_deployment(self):
        _short_str(self._jwt["body"].get(CLAIM + "deployment_id"), "deployment_id")
        return super().validate_deployment()

    def _validate_message(self):
        body = self._jwt["body"]
        message_type = body.get(CLAIM + "message_type")
        if message_type not in self._message_types:
            raise LtiException("message_type missing or not accepted here")
        if body.get(CLAIM + "version") != "1.3.0":
            raise LtiException("version must be 1.3.0")
        _short_str(body.get("sub"), "sub")
        roles = body.get(CLAIM + "roles")
        if not isinstance(roles, list) or not all(isinstance(r, str) for r in roles):
            raise LtiException("roles claim missing")
        context = body.get(CLAIM + "context")
        if context is not None:
            if not isinstance(context, dict):
                raise LtiException("context claim malformed")
            _short_str(context.get("id"), "context id")
        platform = body.get(CLAIM + "tool_platform")
        if platform is not None and not (
            isinstance(platform, dict) and isinstance(platform.get("guid"), str)
        ):
            raise LtiException("tool_platform claim malformed")
        if message_type == RESOURCE_LINK_REQUEST:
            link = body.get(CLAIM + "resource_link")
            if not isinstance(link, dict):
                raise LtiException("resource_link claim missing")
            _short_str(link.get("id"), "resource link id")
        if message_type == DEEP_LINKING_REQUEST:
            dl = body.get(DL_SETTINGS)
            if not isinstance(dl, dict) or not isinstance(dl.get("deep_link_return_url"), str):
                raise LtiException("deep_linking_settings missing")
            # we post the signed response to it: an http(s) URL, never javascript: & co.
            if urlsplit(dl["deep_link_return_url"]).scheme not in ("https", "http"):
                raise LtiException("deep_link_return_url is not an http(s) URL")
            accept = dl.get("accept_types")
            if not isinstance(accept, list) or "ltiResourceLink" not in accept:
                raise LtiException("deep linking does not accept ltiResourceLink")
        self.validate_message()  # pylti1p3's own validators as well

    def validate_nonce(self):
        """The nonce must be the one our login issued for this state, and is used up
        atomically (cache.add) for longer than the token could still be valid."""
        body = self._jwt["body"]
        nonce = body.get("nonce")
        if not isinstance(nonce, str) or not nonce:
            raise LtiException('"nonce" is empty')
        state = self._get_request_param("state")
        if cache.get(login_nonce_key(state)) != nonce:
            raise LtiException("nonce was not issued for this state")
        ttl = max(int(body["exp"] - time.time()), 0) + settings.LTI_CLOCK_LEEWAY_SECONDS + 60
        if not cache.add(f"lti:nonce-used:{nonce}", 1, ttl):
            raise LtiException("nonce already used")
        cache.delete(login_nonce_key(state))
        return self
