"""Every refusal row of ../shared/spec/lti-checklist.md: a 401 or 403 (never 200, never
500) and not one row written to any table a launch could touch."""

from __future__ import annotations

import time

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from lti_tool.models import LtiDeployment

from lti.launch import MAX_AUDIENCES
from tests.lti.conftest import (
    CLAIM,
    DL_RETURN_URL,
    DL_SETTINGS,
    LEARNER,
    PlatformKey,
    new_kid,
    row_counts,
    signed_in_user,
)

DL_OK = {
    "deep_link_return_url": DL_RETURN_URL,
    "accept_types": ["ltiResourceLink"],
    "accept_presentation_document_targets": ["iframe"],
}


def _valid(p, **overrides):
    state, nonce = p.login()
    return {"id_token": p.sign(p.claims(nonce, **overrides)), "state": state}


def _without(p, name):
    state, nonce = p.login()
    claims = p.claims(nonce)
    del claims[name]
    return {"id_token": p.sign(claims), "state": state}


def _with_claims(p, change):
    state, nonce = p.login()
    claims = p.claims(nonce)
    change(claims)
    return {"id_token": p.sign(claims), "state": state}


def _deep_link(p, *, settings=None, drop=False, **overrides):
    state, nonce = p.login()
    claims = p.deep_link_claims(nonce, settings=settings, **overrides)
    if drop:
        del claims[DL_SETTINGS]
    return {"id_token": p.sign(claims), "state": state}


def _state_mismatch(p):
    attack = _valid(p)
    attack["state"] = "state-not-the-one-in-the-cookie"
    return attack


def _no_state_cookie(p):
    return {**_valid(p), "client": Client(enforce_csrf_checks=True)}


def _no_id_token(p):
    return {"id_token": None, "state": p.login()[0]}


def _malformed_id_token(p):
    return {"id_token": "not.a-jwt", "state": p.login()[0]}


def _garbage_json_id_token(p):
    return {"id_token": "bm90IGpzb24.bm90IGpzb24.c2ln", "state": p.login()[0]}


def _no_kid(p):
    state, nonce = p.login()
    claims = p.claims(nonce)
    header = {"alg": "RS256", "typ": "JWT"}
    import jwt

    token = jwt.encode(claims, p.key.private, algorithm="RS256", headers=header)
    # PyJWT adds no kid unless told: check it really has none.
    assert "kid" not in jwt.get_unverified_header(token)
    return {"id_token": token, "state": state}


def _unknown_kid(p):
    state, nonce = p.login()
    stranger = PlatformKey(new_kid())
    return {"id_token": p.sign(p.claims(nonce), key=stranger), "state": state}


def _alg_none(p):
    state, nonce = p.login()
    token = p.sign_raw(
        {"alg": "none", "typ": "JWT", "kid": p.key.kid}, p.claims(nonce), lambda m: ""
    )
    return {"id_token": token, "state": state}


def _hs256_with_public_key(p):
    state, nonce = p.login()
    return {"id_token": p.sign_hs256_with_public_key(p.claims(nonce)), "state": state}


def _other_key_under_platform_kid(p):
    state, nonce = p.login()
    impostor = PlatformKey(p.key.kid)
    return {"id_token": p.sign(p.claims(nonce), key=impostor), "state": state}


def _replay(p, *, cookies: bool):
    state, nonce = p.login()
    token = p.sign(p.claims(nonce))
    first = p.post(token, state)
    assert first.status_code == 303
    client = p.client if cookies else Client(enforce_csrf_checks=True)
    return {"id_token": token, "state": state, "client": client}


def _used_nonce(p):
    state, nonce = p.login()
    assert p.post(p.sign(p.claims(nonce)), state).status_code == 303
    new_state, _new_nonce = p.login()
    return {"id_token": p.sign(p.claims(nonce, sub="someone-else")), "state": new_state}


def _inactive_deployment(p):
    LtiDeployment.objects.update(is_active=False)
    return _valid(p)


def _set(path, value):
    def change(claims):
        claims[path] = value

    return change


def _set_in(path, key, value):
    def change(claims):
        claims[path] = {**claims[path], key: value}
        if value is None:
            del claims[path][key]

    return change


CASES = {
    "state mismatch": _state_mismatch,
    "state cookie missing": _no_state_cookie,
    "id_token missing": _no_id_token,
    "id_token malformed": _malformed_id_token,
    "id_token not JSON": _garbage_json_id_token,
    "no kid": _no_kid,
    "unknown kid": _unknown_kid,
    "alg none": _alg_none,
    "HS256 with the platform's public key": _hs256_with_public_key,
    "RS256 by another key under the platform's kid": _other_key_under_platform_kid,
    "unknown iss": lambda p: _valid(p, iss="https://evil.example.org"),
    "aud without our client_id": lambda p: _valid(p, aud="someone-else"),
    "aud list without our client_id": lambda p: _valid(p, aud=["a", "b"]),
    "several aud without azp": lambda p: _valid(p, aud=["burnin-client", "other"]),
    "aud of more than MAX_AUDIENCES entries": lambda p: _valid(
        p, aud=["burnin-client", *(f"other-{i}" for i in range(MAX_AUDIENCES))], azp="burnin-client"
    ),
    "azp not ours": lambda p: _valid(p, aud=["burnin-client", "other"], azp="other"),
    "azp not ours, one aud": lambda p: _valid(p, azp="other"),
    "exp past": lambda p: _valid(p, exp=int(time.time()) - 3600, iat=int(time.time()) - 7200),
    "exp missing": lambda p: _without(p, "exp"),
    "iat future": lambda p: _valid(p, iat=int(time.time()) + 3600, exp=int(time.time()) + 7200),
    "iat missing": lambda p: _without(p, "iat"),
    "nonce missing": lambda p: _without(p, "nonce"),
    "nonce never issued": lambda p: {
        "id_token": p.sign(p.claims("never-issued-nonce")),
        "state": p.login()[0],
    },
    "nonce already used": _used_nonce,
    "same form replayed with cookies": lambda p: _replay(p, cookies=True),
    "same form replayed without cookies": lambda p: _replay(p, cookies=False),
    "deployment_id missing": lambda p: _without(p, CLAIM + "deployment_id"),
    "deployment_id unknown": lambda p: _valid(p, **{CLAIM + "deployment_id": "dep-x"}),
    "deployment inactive": _inactive_deployment,
    "message_type missing": lambda p: _without(p, CLAIM + "message_type"),
    # /lti/launch/ serves resource-link and deep-linking launches, nothing else
    "message_type wrong for the endpoint": lambda p: _valid(
        p, **{CLAIM + "message_type": "LtiSubmissionReviewRequest"}
    ),
    "deep-linking message with resource-link claims only": lambda p: _valid(
        p, **{CLAIM + "message_type": "LtiDeepLinkingRequest"}
    ),
    "deep-linking settings missing": lambda p: _deep_link(p, settings=None, drop=True),
    "deep-linking accept_types without ltiResourceLink": lambda p: _deep_link(
        p, settings={**DL_OK, "accept_types": ["link", "file"]}
    ),
    "deep-linking return URL not http(s)": lambda p: _deep_link(
        p, settings={**DL_OK, "deep_link_return_url": "javascript:alert(1)"}
    ),
    "deep-linking launch by a learner": lambda p: _deep_link(p, roles=[LEARNER]),
    "deep-linking launch with no roles": lambda p: _deep_link(p, roles=[]),
    "message_type unknown": lambda p: _valid(p, **{CLAIM + "message_type": "Whatever"}),
    "version not 1.3.0": lambda p: _valid(p, **{CLAIM + "version": "1.1"}),
    "roles missing": lambda p: _without(p, CLAIM + "roles"),
    "resource link id missing": lambda p: _with_claims(
        p, _set(CLAIM + "resource_link", {"title": "no id"})
    ),
    "resource link claim missing": lambda p: _without(p, CLAIM + "resource_link"),
    "sub missing": lambda p: _without(p, "sub"),
    "target_link_uri foreign": lambda p: _valid(
        p, **{CLAIM + "target_link_uri": "https://evil.example.org/lti/launch/"}
    ),
    "target_link_uri missing": lambda p: _without(p, CLAIM + "target_link_uri"),
    "context claim malformed": lambda p: _valid(p, **{CLAIM + "context": "course-a"}),
    "tool_platform without guid": lambda p: _valid(p, **{CLAIM + "tool_platform": {}}),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_refused_with_403_and_nothing_written(platform, case):
    attack = CASES[case](platform)
    client = attack.get("client") or platform.client
    before, signed_in = row_counts(), signed_in_user(client)
    response = platform.post(attack["id_token"], attack["state"], client=client)
    assert response.status_code in (401, 403), response.content
    assert row_counts() == before
    assert signed_in_user(client) == signed_in  # nobody signed in by it


def test_unknown_kid_refetches_the_key_set_at_most_once(platform):
    assert platform.launch().status_code == 303
    assert platform.keyset_fetches == 1
    for _ in range(3):
        attack = _unknown_kid(platform)
        assert platform.post(attack["id_token"], attack["state"]).status_code == 403
    # one rate-limited refetch for the three unknown kids, then refusals from the cache
    assert platform.keyset_fetches == 2


def test_a_long_audience_list_is_refused_before_any_registration_is_looked_up(platform):
    """The list is read before the signature is checked (anyone may post it): each entry
    was a registration lookup, and 200,000 held a worker for 67 s."""
    attack = _valid(platform, aud=[f"client-{i}" for i in range(5_000)], azp="burnin-client")
    with CaptureQueriesContext(connection) as seen:
        response = platform.post(attack["id_token"], attack["state"])
    assert response.status_code == 403
    lookups = [q for q in seen.captured_queries if '"client_id" =' in q["sql"]]
    assert not lookups and len(seen) < 10


def test_the_most_audiences_allowed_still_launch(platform):
    others = [f"other-{i}" for i in range(MAX_AUDIENCES - 1)]
    attack = _valid(platform, aud=[*others, "burnin-client"], azp="burnin-client")
    assert platform.post(attack["id_token"], attack["state"]).status_code == 303
