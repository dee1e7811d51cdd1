"""Platform key sets: fetched over HTTP, cached, and refetched at most once per
`LTI_KEYSET_REFETCH_SECONDS` when a token names a `kid` we have not seen.

pylti1p3's own cache keeps a key set until it expires, so a platform that rotates its key
(new `kid`, old one still published) fails every launch until then; its fetch has no
timeout either. Here an unknown `kid` triggers one refetch, and the rate limit
(`cache.add`, atomic) keeps a stream of forged kids from turning into a stream of
requests to the platform."""

from __future__ import annotations

import hashlib

import requests
from django.conf import settings
from django.core.cache import cache
from pylti1p3.exception import LtiException

from lti.bounded_read import BodyRefused, read_body

MAX_KEYSET_BYTES = 256 * 1024  # a key set is a few keys of a few kB each
KEYSET_SECONDS = 10  # the whole answer; LTI_HTTP_TIMEOUT_SECONDS bounds each wait


def _cache_key(prefix: str, url: str) -> str:
    return f"lti:{prefix}:{hashlib.sha256(url.encode()).hexdigest()}"


def _fetch(url: str) -> dict:
    """On a launch's path (a web worker): the answer bounded in size and in time."""
    try:
        response = requests.get(url, timeout=settings.LTI_HTTP_TIMEOUT_SECONDS, stream=True)
        read_body(response, max_bytes=MAX_KEYSET_BYTES, seconds=KEYSET_SECONDS)
        response.raise_for_status()
        keyset = response.json()
    except (requests.RequestException, ValueError, BodyRefused) as exc:
        raise LtiException(f"Could not fetch the platform's key set: {exc}") from exc
    if not isinstance(keyset, dict) or not isinstance(keyset.get("keys"), list):
        raise LtiException("The platform's key set has no list of keys.")
    cache.set(_cache_key("keyset", url), keyset, settings.LTI_KEYSET_CACHE_SECONDS)
    return keyset


def _find(keyset: dict, kid: str) -> dict | None:
    for key in keyset["keys"]:
        if isinstance(key, dict) and key.get("kid") == kid:
            return key
    return None


def platform_key(url: str, kid: str) -> dict:
    """The platform's JWK named `kid`; raises LtiException when, even after the one
    allowed refetch, there is none."""
    keyset = cache.get(_cache_key("keyset", url))
    if keyset is None:
        keyset = _fetch(url)
        found = _find(keyset, kid)
    else:
        found = _find(keyset, kid)
        if found is None and cache.add(
            _cache_key("refetch", url), 1, settings.LTI_KEYSET_REFETCH_SECONDS
        ):
            found = _find(_fetch(url), kid)
    if found is None:
        raise LtiException("No key with this kid in the platform's key set.")
    return found
