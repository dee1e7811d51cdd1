"""The platform side of an LTI launch, played in-process: an RSA key pair and its JWKS
(served to the tool by replacing the HTTP fetch of the key-set URL), id_tokens signed
with PyJWT, and a browser (Django's test client, CSRF enforced, over https) that does the
OIDC login and posts the launch form as an LMS's auto-submit page would."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import uuid
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

import jwt
import pytest
import requests
from cryptography.hazmat.primitives.asymmetric import rsa
from django.apps import apps
from django.core.cache import cache
from django.test import Client
from jwt.algorithms import RSAAlgorithm
from lti_tool.models import Key, LtiDeployment, LtiRegistration

from lti.models import DeploymentCourse
from tests.factories import CourseFactory, QuizFactory
from tests.lti.http_answers import answer

ISS = "https://lms.example.org"
CLIENT_ID = "burnin-client"
DEPLOYMENT = "deployment-1"
KEYSET_URL = ISS + "/.well-known/jwks.json"
LAUNCH_URL = "https://testserver/lti/launch/"
CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
DL_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
DL_RETURN_URL = ISS + "/deep-link/return"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
# Every table an LTI launch could write to: checked before and after each refusal.
WATCHED_APPS = ("lti_tool", "lti", "auth", "assess", "sessions")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _rsa_key() -> rsa.RSAPrivateKey:
    """A fresh 2048-bit key: every PlatformKey is distinct (an impostor's key must not
    happen to be the platform's)."""
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@dataclass
class PlatformKey:
    kid: str
    private: rsa.RSAPrivateKey = field(default_factory=_rsa_key)

    def jwk(self) -> dict:
        jwk = json.loads(RSAAlgorithm.to_jwk(self.private.public_key()))
        return {**jwk, "kid": self.kid, "alg": "RS256", "use": "sig"}


class Platform:
    """The LMS: its published keys (`published`, mutable for rotation tests), and a
    browser that launches the tool."""

    def __init__(
        self,
        client: Client,
        quiz,
        *,
        issuer: str = ISS,
        client_id: str = CLIENT_ID,
        deployment: str = DEPLOYMENT,
        keyset_url: str = KEYSET_URL,
    ):
        self.client = client
        self.quiz = quiz
        self.issuer, self.client_id, self.deployment = issuer, client_id, deployment
        self.keyset_url = keyset_url
        self.key = PlatformKey("platform-key-1")
        self.published = [self.key]
        self.keyset_fetches = 0

    # the key-set URL, as the tool fetches it
    def serve_keyset(self, url, timeout=None, stream=False):
        """requests.get for the platform's key set URL (tests put it in lti.keysets)."""
        assert url == self.keyset_url
        self.keyset_fetches += 1
        return answer(200, {"keys": [k.jwk() for k in self.published]}, url=url)

    def login(self, method: str = "get") -> tuple[str, str]:
        """OIDC third-party login initiation; returns (state, nonce) the tool sent to
        the platform's auth URL."""
        params = {
            "iss": self.issuer,
            "login_hint": "user-hint",
            "target_link_uri": LAUNCH_URL,
            "client_id": self.client_id,
            "lti_deployment_id": self.deployment,
        }
        response = getattr(self.client, method)("/lti/login/", params, secure=True)
        assert response.status_code == 302, response.content
        location = urlsplit(response["Location"])
        assert f"{location.scheme}://{location.netloc}{location.path}" == self.issuer + "/auth"
        query = {k: v[0] for k, v in parse_qs(location.query).items()}
        assert query["redirect_uri"] == LAUNCH_URL
        assert query["client_id"] == self.client_id
        return query["state"], query["nonce"]

    def claims(self, nonce: str, *, sub: str = "learner-sub-1", roles=None, **extra) -> dict:
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "aud": self.client_id,
            "sub": sub,
            "exp": now + 300,
            "iat": now,
            "nonce": nonce,
            "given_name": "Ada",
            "family_name": "Lovelace",
            "email": "ada@example.org",
            CLAIM + "deployment_id": self.deployment,
            CLAIM + "message_type": "LtiResourceLinkRequest",
            CLAIM + "version": "1.3.0",
            CLAIM + "roles": [LEARNER] if roles is None else roles,
            CLAIM + "target_link_uri": LAUNCH_URL,
            CLAIM + "resource_link": {"id": "link-1", "title": "Quiz"},
            CLAIM + "context": {"id": "course-a", "title": "LMS course A"},
            CLAIM + "custom": {"quiz_id": str(self.quiz.pk)},
        }
        claims.update(extra)
        return claims

    def deep_link_claims(
        self, nonce: str, *, settings=None, sub="teacher-sub", roles=None, **extra
    ) -> dict:
        """An LtiDeepLinkingRequest from an instructor (unless `roles`): no resource
        link, no custom quiz, the platform's deep-linking settings (`settings`, or
        complete ones with opaque `data`)."""
        claims = self.claims(nonce, sub=sub, roles=[INSTRUCTOR] if roles is None else roles)
        del claims[CLAIM + "resource_link"], claims[CLAIM + "custom"]
        claims[CLAIM + "message_type"] = "LtiDeepLinkingRequest"
        claims[DL_SETTINGS] = settings or {
            "deep_link_return_url": DL_RETURN_URL,
            "accept_types": ["ltiResourceLink"],
            "accept_presentation_document_targets": ["iframe", "window"],
            "accept_multiple": False,
            "data": "opaque-platform-data-42",
        }
        claims.update(extra)
        return claims

    def deep_link_launch(self, **kwargs):
        """A whole deep-linking launch: login, then the signed form."""
        state, nonce = self.login()
        return self.post(self.sign(self.deep_link_claims(nonce, **kwargs)), state)

    def sign(self, claims: dict, *, key: PlatformKey | None = None, headers=None) -> str:
        key = key or self.key
        return jwt.encode(
            claims, key.private, algorithm="RS256", headers={"kid": key.kid, **(headers or {})}
        )

    def sign_raw(self, header: dict, claims: dict, sign) -> str:
        signing_input = (
            f"{b64url(json.dumps(header).encode())}.{b64url(json.dumps(claims).encode())}"
        )
        return f"{signing_input}.{sign(signing_input.encode())}"

    def sign_hs256_with_public_key(self, claims: dict) -> str:
        from cryptography.hazmat.primitives import serialization

        secret = self.key.private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        header = {"alg": "HS256", "typ": "JWT", "kid": self.key.kid}
        return self.sign_raw(
            header, claims, lambda m: b64url(hmac.new(secret, m, hashlib.sha256).digest())
        )

    def post(self, id_token: str | None, state: str | None, *, client: Client | None = None):
        data = {}
        if id_token is not None:
            data["id_token"] = id_token
        if state is not None:
            data["state"] = state
        return (client or self.client).post("/lti/launch/", data, secure=True)

    def launch(self, **claim_overrides):
        """A whole valid launch: login, then the signed form."""
        state, nonce = self.login()
        return self.post(self.sign(self.claims(nonce, **claim_overrides)), state)


def row_counts() -> dict[str, int]:
    return {
        model._meta.label: model.objects.count()
        for label in WATCHED_APPS
        for model in apps.get_app_config(label).get_models()
    }


def signed_in_user(client: Client) -> str | None:
    """The user id in the client's session, read without creating a session (the test
    client's `.session` saves a new one)."""
    from django.conf import settings
    from django.contrib.sessions.backends.db import SessionStore

    cookie = client.cookies.get(settings.SESSION_COOKIE_NAME)
    return SessionStore(cookie.value).get("_auth_user_id") if cookie else None


@pytest.fixture
def tool_key(db):
    return Key.objects.generate()


def register_lms(
    *,
    name: str = "Example LMS",
    issuer: str = ISS,
    client_id: str = CLIENT_ID,
    deployment: str = DEPLOYMENT,
    keyset_url: str = KEYSET_URL,
    auth_url: str | None = None,
    token_url: str | None = None,
    courses=(),
) -> LtiRegistration:
    """An LMS registration with one active deployment authorised for `courses`, as an
    admin makes them."""
    registration = LtiRegistration.objects.create(
        name=name,
        issuer=issuer,
        client_id=client_id,
        auth_url=auth_url or issuer + "/auth",
        token_url=token_url or issuer + "/token",
        keyset_url=keyset_url,
    )
    made = LtiDeployment.objects.create(
        registration=registration, deployment_id=deployment, is_active=True
    )
    for course in courses:
        DeploymentCourse.objects.create(deployment=made, course=course)
    return registration


@pytest.fixture
def registration(db, tool_key, course):
    """The LMS, its deployment authorised for `course` (the quiz's)."""
    return register_lms(courses=[course])


@pytest.fixture
def course(db):
    return CourseFactory(slug="lti-course")


@pytest.fixture
def quiz(course):
    return QuizFactory(course=course, title="Memory drill")


@pytest.fixture
def platform(registration, quiz, monkeypatch):
    platform = Platform(Client(enforce_csrf_checks=True), quiz)
    monkeypatch.setattr("lti.keysets.requests.get", platform.serve_keyset)
    return platform


def new_kid() -> str:
    return "kid-" + uuid.uuid4().hex[:8]


@pytest.fixture
def lms(platform, tool_key, monkeypatch):
    """The test LMS's services (tests.lti.lms_services) behind the platform client."""
    from tests.lti.lms_services import FakeLms, LmsAdapter  # it imports this module

    cache.clear()  # no access token from another test's platform
    lms = FakeLms(key=platform.key, tool_jwks=Key.objects.as_jwks())
    session = requests.Session()
    session.mount("https://lms.example.org/", LmsAdapter(lms))
    monkeypatch.setattr("lti.platform_client._session", session)
    # Eager tasks run their retries in a loop only when errors are not propagated (a
    # real worker schedules them with the countdown instead).
    from config.celery import app

    saved = app.conf.task_eager_propagates
    app.conf.task_eager_propagates = False
    yield lms
    app.conf.task_eager_propagates = saved
