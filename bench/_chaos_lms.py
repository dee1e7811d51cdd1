"""The chaos run's test LMS: the launch of its exam link (OIDC) and the two services grade
passback calls (lti.platform_client, lti.ags), served over HTTP on loopback by a thread
of the harness.

- `GET /auth`: OIDC authorization, where the tool's login sends the learner's browser.
  The request is checked as a platform would (client id, the registered launch URL as
  redirect_uri, a known login_hint, state and nonce present); the answer is the
  auto-posting form with a signed LtiResourceLinkRequest for that learner: the course
  context, the exam's resource link (custom quiz_id), the score service's claim.
- `GET /jwks`: the LMS's public key, which the tool verifies launches with.
- `POST /token`: OAuth2 client_credentials with a signed client assertion. The
  assertion's signature is checked against the tool's published key set (fetched from
  the tool's /lti/jwks/ once the tool is up), its iss and aud against the registration;
  the answer is a bearer token.
- `GET|POST /lineitems`: the course's gradebook columns (look-up by resource_id,
  creation), with the bearer token checked.
- `POST /lineitems/<n>/scores`: a score for a user, recorded.

The gradebook is what the run's check reads: every score the tool says it sent must be
here. An independent LMS (lti1p3platform, tests/lti) would check more of the protocol;
this one checks what passback depends on, without a second web stack in the run.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections import Counter
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

CLIENT_ID = "chaos-tool"
DEPLOYMENT_ID = "chaos-deployment"
KID = "chaos-lms-1"
LTI = "https://purl.imsglobal.org/spec/lti/claim/"
AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
AGS_SCOPES = [
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
]
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"


class Gradebook:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.tokens: set[str] = set()
        self.items: list[dict] = []
        self.scores: Counter = Counter()  # (line item id, user id) -> scores received
        self.last: dict = {}  # (line item id, user id) -> the last score's body
        self.tool_jwks_url = ""
        self._keys = None
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.tool_launch_url = ""  # the only redirect_uri a login may name
        self.exam_id = 0  # the quiz the exam link's custom claim names
        self.users: set[str] = set()  # the LMS's learners (login_hint = sub)
        self.launches = 0  # signed launches handed out

    def jwks(self) -> dict:
        jwk = RSAAlgorithm.to_jwk(self.key.public_key(), as_dict=True)
        return {"keys": [{**jwk, "kid": KID, "alg": "RS256", "use": "sig"}]}


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        return

    def _reply(self, status: int, body=None, content_type="application/json") -> None:
        self._send(status, b"" if body is None else json.dumps(body).encode(), content_type)

    def _send(self, status: int, data: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _authorised(self) -> bool:
        token = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
        with self.server.book.lock:
            return token in self.server.book.tokens

    def do_POST(self):  # noqa: N802 - http.server's name
        book, path = self.server.book, urlsplit(self.path).path
        if path == "/token":
            return self._token(parse_qs(self._body().decode()))
        if not self._authorised():
            return self._reply(401, {"error": "invalid_token"})
        body = json.loads(self._body() or b"{}")
        if path == "/lineitems":
            with book.lock:
                item = {**body, "id": f"{self.server.base}/lineitems/{len(book.items) + 1}"}
                book.items.append(item)
            return self._reply(201, item, "application/vnd.ims.lis.v2.lineitem+json")
        if path.startswith("/lineitems/") and path.endswith("/scores"):
            item = f"{self.server.base}{path.removesuffix('/scores')}"
            with book.lock:
                book.scores[item, body.get("userId")] += 1
                book.last[item, body.get("userId")] = body
            return self._reply(200, {})
        return self._reply(404, {"error": "not found"})

    def do_GET(self):  # noqa: N802
        book, parts = self.server.book, urlsplit(self.path)
        if parts.path == "/jwks":
            return self._reply(200, book.jwks())
        if parts.path == "/auth":
            return self._auth({k: v[0] for k, v in parse_qs(parts.query).items()})
        if parts.path != "/lineitems":
            return self._reply(404, {"error": "not found"})
        if not self._authorised():
            return self._reply(401, {"error": "invalid_token"})
        wanted = parse_qs(parts.query).get("resource_id", [None])[0]
        with book.lock:
            items = [i for i in book.items if wanted is None or i.get("resourceId") == wanted]
        return self._reply(200, items, "application/vnd.ims.lis.v2.lineitemcontainer+json")

    def _auth(self, query: dict) -> None:
        """The signed launch of the exam link for `login_hint`, in the form the browser
        posts to the tool; a request no platform would answer gets a 400."""
        book, base = self.server.book, self.server.base
        expected = {
            "response_type": "id_token",
            "response_mode": "form_post",
            "scope": "openid",
            "client_id": CLIENT_ID,
            "redirect_uri": book.tool_launch_url,
        }
        wrong = sorted(k for k, v in expected.items() if query.get(k) != v)
        sub, state, nonce = (query.get(k) for k in ("login_hint", "state", "nonce"))
        if wrong or sub not in book.users or not state or not nonce:
            return self._reply(400, {"error": "invalid_request", "wrong": wrong})
        now = int(time.time())
        claims = {
            "iss": base,
            "aud": CLIENT_ID,
            "azp": CLIENT_ID,
            "sub": sub,
            "iat": now,
            "exp": now + 300,
            "nonce": nonce,
            LTI + "message_type": "LtiResourceLinkRequest",
            LTI + "version": "1.3.0",
            LTI + "deployment_id": DEPLOYMENT_ID,
            LTI + "target_link_uri": book.tool_launch_url,
            LTI + "roles": [LEARNER],
            LTI + "context": {"id": "chaos-course", "title": "Chaos course"},
            LTI + "resource_link": {"id": "chaos-exam", "title": "Chaos exam"},
            LTI + "custom": {"quiz_id": str(book.exam_id)},
            AGS: {"scope": AGS_SCOPES, "lineitems": f"{base}/lineitems"},
        }
        token = jwt.encode(claims, book.key, algorithm="RS256", headers={"kid": KID})
        with book.lock:
            book.launches += 1
        fields = "".join(
            f'<input type="hidden" name="{name}" value="{escape(value)}">'
            for name, value in (("id_token", token), ("state", state))
        )
        form = f'<form method="post" action="{escape(book.tool_launch_url)}">{fields}</form>'
        self._send(200, form.encode(), "text/html; charset=utf-8")

    def _token(self, form: dict) -> None:
        book = self.server.book
        assertion = (form.get("client_assertion") or [""])[0]
        try:
            if book._keys is None:
                book._keys = jwt.PyJWKClient(book.tool_jwks_url)
            key = book._keys.get_signing_key_from_jwt(assertion).key
            claims = jwt.decode(
                assertion, key, algorithms=["RS256"], audience=f"{self.server.base}/token"
            )
        except (jwt.PyJWTError, OSError) as exc:
            return self._reply(400, {"error": "invalid_client", "detail": str(exc)[:200]})
        if claims.get("iss") != CLIENT_ID or claims.get("sub") != CLIENT_ID:
            return self._reply(400, {"error": "invalid_client"})
        token = secrets.token_urlsafe(16)
        with book.lock:
            book.tokens.add(token)
        return self._reply(200, {"access_token": token, "token_type": "Bearer", "expires_in": 3600})


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, book: Gradebook) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.book = book
        self.base = f"http://127.0.0.1:{self.server_address[1]}"


class TestLms:
    """The LMS on a free loopback port, in a daemon thread; stop() shuts it down."""

    __test__ = False  # a test double, not a pytest class

    def __init__(self) -> None:
        self.book = Gradebook()
        self._server = _Server(self.book)
        self.base = self._server.base
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def start(self, tool_base: str, *, exam_id: int, users) -> None:
        """Serve, for the tool at `tool_base`: its key set and launch URL, the exam its
        link opens and the learners who may launch it."""
        self.book.tool_jwks_url = f"{tool_base}/lti/jwks/"
        self.book.tool_launch_url = f"{tool_base}/lti/launch/"
        self.book.exam_id = exam_id
        self.book.users = set(users)
        self._thread.start()

    def stop(self) -> None:
        """Stop serving (if it started: shutdown() of a server that never served waits
        for good) and close the socket."""
        if self._thread.is_alive():
            self._server.shutdown()
        self._server.server_close()

    def received(self) -> dict[str, int]:
        """Scores received per LMS user id (every line item)."""
        with self.book.lock:
            per_user = Counter()
            for (_, user), n in self.book.scores.items():
                per_user[user] += n
            return dict(per_user)
