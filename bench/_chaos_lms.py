"""The chaos run's test LMS: the two services grade passback calls (lti.platform_client,
lti.ags), served over HTTP on loopback by a thread of the harness.

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
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import jwt

CLIENT_ID = "chaos-tool"


class Gradebook:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.tokens: set[str] = set()
        self.items: list[dict] = []
        self.scores: Counter = Counter()  # (line item id, user id) -> scores received
        self.last: dict = {}  # (line item id, user id) -> the last score's body
        self.tool_jwks_url = ""
        self._keys = None


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        return

    def _reply(self, status: int, body=None, content_type="application/json") -> None:
        data = b"" if body is None else json.dumps(body).encode()
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
        if parts.path != "/lineitems":
            return self._reply(404, {"error": "not found"})
        if not self._authorised():
            return self._reply(401, {"error": "invalid_token"})
        wanted = parse_qs(parts.query).get("resource_id", [None])[0]
        with book.lock:
            items = [i for i in book.items if wanted is None or i.get("resourceId") == wanted]
        return self._reply(200, items, "application/vnd.ims.lis.v2.lineitemcontainer+json")

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

    def __init__(self) -> None:
        self.book = Gradebook()
        self._server = _Server(self.book)
        self.base = self._server.base
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def start(self, tool_jwks_url: str) -> None:
        self.book.tool_jwks_url = tool_jwks_url
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
