"""LTI Dynamic Registration end to end against a test platform written here from the
specification's messages (lti1p3platform has none): staff mint a URL, the platform opens
it with its openid_configuration and registration_token, the tool fetches the
configuration and posts its registration, the platform answers with a client_id and a
deployment_id, and the tool stores them. Then a launch through the new registration
into an allowed course opens its quiz, and one into another course is a 403 that writes
nothing. Every refusal writes nothing: the LTI tables' row counts are unchanged."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
import requests
from django.test import Client
from django.utils import timezone
from lti_tool.models import LtiDeployment, LtiRegistration

from api_common.service_errors import NotPermitted
from lti import dynamic_registration as dr
from lti.models import DeploymentCourse, RegistrationInvite
from tests.factories import CourseFactory, QuizFactory, UserFactory
from tests.lti.conftest import CLAIM, LEARNER, Platform, row_counts
from tests.lti.http_answers import answer

LMS = "https://moodle.example.edu"
CONFIG_URL = LMS + "/mod/lti/openid-configuration.php"
REGISTRATION_TOKEN = "reg-token-123"


class TestPlatform(requests.adapters.BaseAdapter):
    """The LMS's side of the exchange: its OpenID configuration, and a registration
    endpoint that checks the bearer token and the tool's request, stores the client and
    answers as the specification's example does."""

    __test__ = False

    def __init__(self):
        super().__init__()
        self.config = {
            "issuer": LMS,
            "token_endpoint": LMS + "/mod/lti/token.php",
            "token_endpoint_auth_methods_supported": ["private_key_jwt"],
            "token_endpoint_auth_signing_alg_values_supported": ["RS256"],
            "jwks_uri": LMS + "/mod/lti/certs.php",
            "authorization_endpoint": LMS + "/mod/lti/auth.php",
            "registration_endpoint": LMS + "/mod/lti/openid-registration.php",
            "scopes_supported": [*dr.SCOPES, "openid"],
            "response_types_supported": ["id_token"],
            "subject_types_supported": ["public", "pairwise"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "claims_supported": ["sub", "iss", "name", "given_name", "family_name", "email"],
            dr.PLATFORM_CONFIG: {
                "product_family_code": "moodle",
                "version": "4.5",
                "messages_supported": [
                    {"type": "LtiResourceLinkRequest"},
                    {"type": "LtiDeepLinkingRequest"},
                ],
            },
        }
        self.clients: list[dict] = []  # registrations the platform stored
        self.refuse_with: int | None = None
        self.answer: dict | None = None

    def send(self, request, **kwargs):
        url = request.url
        if request.method == "GET" and url == CONFIG_URL:
            return self._response(request, 200, self.config)
        if request.method == "POST" and url == self.config["registration_endpoint"]:
            if request.headers.get("Authorization") != f"Bearer {REGISTRATION_TOKEN}":
                return self._response(request, 401, {"error": "invalid_token"})
            if self.refuse_with:
                return self._response(request, self.refuse_with, {"error": "refused"})
            body = json.loads(request.body)
            self.clients.append(body)
            answer = self.answer or {
                **body,
                "client_id": f"client-{len(self.clients)}",
                dr.TOOL_CONFIG: {**body[dr.TOOL_CONFIG], "deployment_id": "dep-7"},
            }
            return self._response(request, 200, answer)
        return self._response(request, 404, {"error": "not found"})

    @staticmethod
    def _response(request, status: int, body) -> requests.Response:
        return answer(status, body, request=request)

    def close(self):
        pass


@pytest.fixture
def lms(monkeypatch):
    session = requests.Session()
    platform = TestPlatform()
    session.mount("https://", platform)
    monkeypatch.setattr(dr, "http", session)
    return platform


@pytest.fixture
def staff(db):
    return UserFactory(is_staff=True)


@pytest.fixture
def allowed(db):
    return CourseFactory(slug="allowed-course")


@pytest.fixture
def minted(tool_key, staff, allowed):
    invite, token = dr.invite_mint(user=staff, label="Moodle at Example U", courses=[allowed])
    return invite, token


def _open(token: str, **params) -> object:
    query = {"openid_configuration": CONFIG_URL, "registration_token": REGISTRATION_TOKEN}
    query.update(params)
    query = {k: v for k, v in query.items() if v is not None}
    return Client().get(f"/lti/register/{token}/?{urlencode(query)}", secure=True)


def test_the_platform_registers_the_tool_and_a_launch_follows(lms, minted, allowed, monkeypatch):
    invite, token = minted
    response = _open(token)
    assert response.status_code == 200, response.content
    page = response.content.decode()
    assert "Burn-in is registered" in page and allowed.title in page
    assert "registration-close.js" in page  # posts org.imsglobal.lti.close to the LMS
    script = (Path(dr.__file__).parent / "static/lti/registration-close.js").read_text()
    assert 'postMessage({ subject: "org.imsglobal.lti.close" }' in script
    # the page may sit in the LMS's frame, and only the LMS's
    assert "X-Frame-Options" not in response
    assert f"frame-ancestors {LMS}" in response["Content-Security-Policy"]
    # what the tool sent is the specification's registration
    (sent,) = lms.clients
    assert sent["initiate_login_uri"] == "https://testserver/lti/login/"
    assert sent["redirect_uris"] == ["https://testserver/lti/launch/"]
    assert sent["jwks_uri"] == "https://testserver/lti/jwks/"
    assert sent["token_endpoint_auth_method"] == "private_key_jwt"
    assert set(sent["scope"].split()) == set(dr.SCOPES)
    messages = {m["type"] for m in sent[dr.TOOL_CONFIG]["messages"]}
    assert messages == {"LtiResourceLinkRequest", "LtiDeepLinkingRequest"}
    # what the tool stored: the records the admin's manual registration makes
    registration = LtiRegistration.objects.get(issuer=LMS)
    assert (registration.client_id, registration.is_active) == ("client-1", True)
    assert registration.keyset_url == lms.config["jwks_uri"]
    deployment = LtiDeployment.objects.get(registration=registration)
    assert (deployment.deployment_id, deployment.is_active) == ("dep-7", True)
    assert [r.course for r in DeploymentCourse.objects.filter(deployment=deployment)] == [allowed]
    invite.refresh_from_db()
    assert invite.used_at is not None and invite.registration == registration

    # a launch through the new registration into the allowed course opens its quiz
    quiz = QuizFactory(course=allowed, title="Allowed quiz")
    platform = Platform(
        Client(enforce_csrf_checks=True),
        quiz,
        issuer=LMS,
        client_id="client-1",
        deployment="dep-7",
        keyset_url=lms.config["jwks_uri"],
    )
    monkeypatch.setattr("lti.keysets.requests.get", platform.serve_keyset)
    assert _launch(platform, quiz).status_code == 303
    # and one into a course the URL did not list is a 403 that writes nothing
    elsewhere = QuizFactory(course=CourseFactory(slug="not-listed"), title="Elsewhere")
    before = row_counts()
    refused = _launch(platform, elsewhere, link="link-2")
    assert refused.status_code == 403
    assert row_counts() == before


def _launch(platform: Platform, quiz, *, link: str = "link-1"):
    state, nonce = _login(platform)
    claims = platform.claims(
        nonce,
        roles=[LEARNER],
        **{
            CLAIM + "custom": {"quiz_id": str(quiz.pk)},
            CLAIM + "resource_link": {"id": link},
        },
    )
    return platform.post(platform.sign(claims), state)


def _login(platform: Platform) -> tuple[str, str]:
    """The OIDC login against the new registration's auth URL (Moodle's path)."""
    params = {
        "iss": platform.issuer,
        "login_hint": "user-hint",
        "target_link_uri": "https://testserver/lti/launch/",
        "client_id": platform.client_id,
        "lti_deployment_id": platform.deployment,
    }
    response = platform.client.get("/lti/login/", params, secure=True)
    assert response.status_code == 302, response.content
    location = urlsplit(response["Location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == LMS + "/mod/lti/auth.php"
    query = {k: v[0] for k, v in parse_qs(location.query).items()}
    return query["state"], query["nonce"]


def _refused(token: str, status: int, words: str, **params) -> None:
    before = row_counts()
    response = _open(token, **params)
    assert response.status_code == status, response.content
    assert words in response.content.decode()
    assert "Nothing was saved" in response.content.decode()
    assert row_counts() == before


def test_an_unknown_url_is_refused(lms, minted):
    _refused("not-a-token", 404, "not one Burn-in issued")


def test_an_expired_url_is_refused(lms, minted):
    invite, token = minted
    RegistrationInvite.objects.filter(pk=invite.pk).update(
        expires_at=timezone.now() - datetime.timedelta(seconds=1)
    )
    _refused(token, 410, "has expired")
    assert lms.clients == []


def test_a_revoked_url_is_refused(lms, minted, staff):
    invite, token = minted
    dr.invite_revoke(user=staff, invite=invite)
    _refused(token, 410, "was revoked")


def test_a_used_url_cannot_register_again(lms, minted):
    _, token = minted
    assert _open(token).status_code == 200
    _refused(token, 410, "already been used")
    assert len(lms.clients) == 1


def test_a_configuration_whose_issuer_is_elsewhere_is_refused(lms, minted):
    lms.config["issuer"] = "https://evil.example.net"
    _refused(minted[1], 400, "is not on the host it was fetched from")
    assert lms.clients == []


@pytest.mark.parametrize(
    ("issuer_host", "url_host", "same"),
    [
        ("moodle.example.edu", "moodle.example.edu", True),
        ("canvas.instructure.com", "school.instructure.com", True),  # hosted Canvas
        ("canvas.instructure.com", "instructure.com.evil.net", False),
        ("example.com", "evil.com", False),  # a one-label parent never counts
        ("moodle.example.edu", "example.edu", False),
    ],
)
def test_an_issuer_speaks_only_for_its_own_site(issuer_host, url_host, same):
    assert dr.same_site(issuer_host, url_host) is same


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("registration_endpoint", None, "registration_endpoint is not an https URL"),
        ("jwks_uri", "http://moodle.example.edu/certs", "jwks_uri is not an https URL"),
        ("id_token_signing_alg_values_supported", ["HS256"], "does not include RS256"),
        (dr.PLATFORM_CONFIG, None, "product_family_code"),
    ],
)
def test_a_configuration_missing_what_a_launch_needs_is_refused(lms, minted, field, value, words):
    if value is None:
        del lms.config[field]
    else:
        lms.config[field] = value
    _refused(minted[1], 400, words)


def test_a_platform_that_refuses_the_registration_is_shown(lms, minted):
    lms.refuse_with = 400
    _refused(minted[1], 502, "The platform refused the registration (400)")
    invite = RegistrationInvite.objects.get(pk=minted[0].pk)
    assert invite.used_at is None  # the same URL can be tried again


def test_a_wrong_registration_token_is_the_platforms_refusal(lms, minted):
    _refused(minted[1], 502, "refused the registration (401)", registration_token="stale")


def test_an_answer_without_a_deployment_id_is_refused(lms, minted):
    lms.answer = {"client_id": "client-x"}
    _refused(minted[1], 502, "no deployment_id")


def test_a_missing_openid_configuration_is_refused(lms, minted):
    _refused(minted[1], 400, "did not send openid_configuration", openid_configuration="")


def test_an_unreachable_platform_is_refused(minted, monkeypatch):
    monkeypatch.setattr(dr, "http", requests.Session())  # nothing is mounted: no network
    monkeypatch.setattr(
        dr.http, "get", lambda *a, **k: (_ for _ in ()).throw(requests.ConnectionError("down"))
    )
    _refused(minted[1], 502, "could not be fetched")


def test_only_staff_mint_and_revoke(db, allowed):
    with pytest.raises(NotPermitted):
        dr.invite_mint(user=UserFactory(), label="x", courses=[allowed])
    invite, _ = dr.invite_mint(user=UserFactory(is_staff=True), label="x", courses=[allowed])
    with pytest.raises(NotPermitted):
        dr.invite_revoke(user=UserFactory(), invite=invite)


def test_only_the_secrets_hash_is_stored(minted):
    invite, token = minted
    assert token not in invite.token_hash and len(invite.token_hash) == 64
    assert invite.expires_at - timezone.now() > datetime.timedelta(days=6, hours=23)


def test_staff_mint_a_url_in_the_admin_and_it_registers(lms, tool_key, allowed):
    admin = UserFactory(is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(admin)
    response = client.post(
        "/admin/lti/registrationinvite/add/",
        {"label": "Canvas at Example U", "courses": [allowed.pk], "days": 3},
        secure=True,
        follow=True,
    )
    assert response.status_code == 200
    shown = [str(m) for m in response.context["messages"]]
    (url,) = [w for m in shown for w in m.split() if "/lti/register/" in w]
    invite = RegistrationInvite.objects.get(label="Canvas at Example U")
    assert list(invite.courses.all()) == [allowed] and invite.created_by == admin
    assert datetime.timedelta(days=2, hours=23) < invite.expires_at - timezone.now()
    token = urlsplit(url).path.rstrip("/").rsplit("/", 1)[1]
    assert _open(token).status_code == 200
    assert DeploymentCourse.objects.get().course == allowed
