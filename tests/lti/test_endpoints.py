"""The LTI endpoints themselves: the published key set and its rotation, the login's
refusals and cookie, CSRF exemption, framing headers, and deep-linking claim checks."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.test import Client, RequestFactory
from django.utils import timezone
from lti_tool.models import Key, LtiRegistration
from pylti1p3.exception import LtiException

from lti.launch import DEEP_LINKING_REQUEST, DL_SETTINGS, HardenedMessageLaunch
from lti.tool_config import ReadOnlyToolConfig
from tests.lti.conftest import CLAIM, CLIENT_ID, ISS, LAUNCH_URL, row_counts
from tests.policy import frame_ancestors


def _kids(client) -> list[str]:
    return [k["kid"] for k in client.get("/lti/jwks/").json()["keys"]]


def test_jwks_publishes_every_active_key_as_rs256_sig(db, client):
    active = {str(Key.objects.generate()), str(Key.objects.generate())}
    retired = Key.objects.generate()
    Key.objects.filter(pk=retired.pk).update(is_active=False)
    keys = client.get("/lti/jwks/").json()["keys"]
    assert {k["kid"] for k in keys} == active
    for key in keys:
        assert key["kid"] and key["alg"] == "RS256" and key["use"] == "sig"
        assert key["kty"] == "RSA" and "d" not in key  # public halves only


def test_rotate_keys_keeps_the_old_key_published_until_deactivate_after(db, client):
    old = Key.objects.generate()
    call_command("rotate_keys", "--deactivate-after", "7", stdout=None)
    assert str(old) in _kids(client) and len(_kids(client)) == 2  # both published

    Key.objects.filter(pk=old.pk).update(datetime_created=timezone.now() - timedelta(days=8))
    call_command("rotate_keys", "--deactivate-after", "7")
    kids = _kids(client)
    assert str(old) not in kids and len(kids) == 2  # old retired, the two recent remain


def test_login_from_an_unknown_issuer_is_refused_and_writes_nothing(registration):
    client = Client(enforce_csrf_checks=True)
    before = row_counts()
    for method in ("get", "post"):
        response = getattr(client, method)(
            "/lti/login/",
            {"iss": "https://evil.example.org", "login_hint": "x", "target_link_uri": LAUNCH_URL},
            secure=True,
        )
        assert response.status_code == 403
    response = client.get("/lti/login/", {"iss": ISS, "client_id": "nope", "login_hint": "x"})
    assert response.status_code == 403
    assert row_counts() == before


def test_login_redirects_to_our_launch_url_never_the_named_target(platform):
    response = platform.client.get(
        "/lti/login/",
        {
            "iss": ISS,
            "client_id": CLIENT_ID,
            "login_hint": "x",
            "target_link_uri": "https://evil.example.org/steal",
        },
        secure=True,
    )
    assert response.status_code == 302
    assert "redirect_uri=https%3A%2F%2Ftestserver%2Flti%2Flaunch%2F" in response["Location"]


def test_login_without_client_id_resolves_a_single_registration(platform):
    response = platform.client.get("/lti/login/", {"iss": ISS, "login_hint": "x"}, secure=True)
    assert response.status_code == 302


def test_state_cookie_is_samesite_none_secure_httponly(platform):
    platform.login()
    cookies = [c for name, c in platform.client.cookies.items() if "state" in name]
    assert cookies
    for cookie in cookies:
        assert cookie["samesite"] == "None" and cookie["secure"] and cookie["httponly"]


def test_lti_responses_are_frameable_by_registered_platforms_only(platform):
    LtiRegistration.objects.create(
        name="Inactive",
        issuer="https://inactive.example.org",
        client_id="c",
        auth_url="https://inactive.example.org/auth",
        token_url="https://inactive.example.org/token",
        keyset_url="https://inactive.example.org/jwks",
        is_active=False,
    )
    login = platform.client.get(
        "/lti/login/", {"iss": ISS, "login_hint": "x", "client_id": CLIENT_ID}, secure=True
    )
    refused = platform.post("garbage", "state")
    for response in (login, refused, platform.launch()):
        assert frame_ancestors(response) == ISS
        assert "X-Frame-Options" not in response
    assert "X-Frame-Options" in platform.client.get("/", secure=True)  # the rest: unframed


def test_no_registration_means_no_framing(db, client):
    response = client.post("/lti/launch/", {"id_token": "x", "state": "y"}, secure=True)
    assert response.status_code == 403
    assert frame_ancestors(response) == "'none'"


def test_launch_is_csrf_exempt_but_post_only(platform):
    assert platform.launch().status_code == 303  # posted with CSRF checks enforced
    assert platform.client.get("/lti/launch/", secure=True).status_code == 405


# The launch class's deep-linking settings checks, on their own (the endpoint's refusals
# are rows of test_launch_refusals.py, the whole flow is test_deep_linking.py).
def _deep_link_launch(platform, settings_claim):
    state, nonce = platform.login()
    claims = platform.claims(
        nonce, roles=["Instructor"], **{CLAIM + "message_type": DEEP_LINKING_REQUEST}
    )
    del claims[CLAIM + "resource_link"]
    if settings_claim is not None:
        claims[DL_SETTINGS] = settings_claim
    request = RequestFactory().post(
        "/lti/launch/", {"id_token": platform.sign(claims), "state": state}, secure=True
    )
    request.COOKIES.update({k: v.value for k, v in platform.client.cookies.items()})
    request.session = {}
    return HardenedMessageLaunch(
        request,
        ReadOnlyToolConfig(),
        launch_url=LAUNCH_URL,
        message_types=[DEEP_LINKING_REQUEST],
    )


GOOD_DL = {
    "deep_link_return_url": "https://lms.example.org/dl",
    "accept_types": ["ltiResourceLink"],
    "accept_presentation_document_targets": ["iframe"],
}


@pytest.mark.parametrize(
    "settings_claim",
    [None, {**GOOD_DL, "accept_types": ["link"]}, {**GOOD_DL, "deep_link_return_url": None}],
    ids=["missing", "no ltiResourceLink", "no return URL"],
)
def test_deep_linking_settings_are_required(platform, settings_claim):
    with pytest.raises(LtiException):
        _deep_link_launch(platform, settings_claim).validate()


def test_deep_linking_settings_that_are_complete_pass(platform):
    assert _deep_link_launch(platform, GOOD_DL).validate().is_deep_link_launch()
