"""A request body over DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MB) is a 413 before anything
reads it: in the API's error format (code `request_too_large`, documented on every
operation) and the site's 413 page elsewhere, anonymous or signed in. Before, the token
endpoint's throttle read it and raised RequestDataTooBig: a 500 (a page said 400).

The test client is made with raise_request_exception=False, so what it returns is what a
browser or an API client would get (a raised exception would otherwise stop the test)."""

from __future__ import annotations

import io

import pytest
from django.conf import settings
from django.http import HttpRequest
from django.test import Client

from api_common import request_size
from tests.factories import PASSWORD, UserFactory
from tests.openapi import assert_documented, project

pytestmark = pytest.mark.django_db
LIMIT = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
TOKEN = "/api/auth/token/"


def json_body(size: int) -> bytes:
    """A JSON token request of exactly `size` bytes."""
    head, tail = b'{"username": "', b'", "password": "x"}'
    return head + b"u" * (size - len(head) - len(tail)) + tail


def client(user=None) -> Client:
    c = Client(raise_request_exception=False)
    if user is not None:
        c.force_login(user)
    return c


def assert_too_large(response) -> None:
    assert response.status_code == 413, response.content[:300]
    body = response.json()
    assert body["type"] == "client_error"
    [error] = body["errors"]
    assert error["code"] == "request_too_large" and error["attr"] is None
    assert "2.5 MB" in error["detail"]


def test_an_anonymous_token_request_over_the_limit_is_413_in_the_error_format():
    big = json_body(LIMIT + 1)
    r = client().post(TOKEN, big, content_type="application/json")
    assert_too_large(r)
    assert_documented(r, "post", TOKEN)
    # a form post too (the token endpoint still reads forms)
    form = client().post(TOKEN, {"username": "u" * LIMIT, "password": "x"})
    assert_too_large(form)


def test_a_body_at_the_limit_is_read_as_usual():
    UserFactory(username="learner")
    r = client().post(TOKEN, json_body(LIMIT), content_type="application/json")
    assert r.status_code == 400  # no such user: the body was read
    ok = client().post(TOKEN, {"username": "learner", "password": PASSWORD})
    assert ok.status_code == 200


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("post", "/api/quizzes/"),
        ("put", "/api/quizzes/1/extensions/2/"),
        ("post", "/api/memos/"),
        ("get", "/api/me/mastery/"),
        ("delete", TOKEN),
        ("post", "/api/no-such-route/"),
    ],
)
def test_every_api_operation_signed_in_or_not_answers_413(method, path):
    staff = UserFactory(username="root", is_staff=True, is_superuser=True)
    for user in (None, staff):
        body = json_body(LIMIT + 1)
        r = client(user).generic(method.upper(), path, body, content_type="application/json")
        assert_too_large(r)
        if "no-such" not in path:
            assert_documented(r, method, path)


def test_a_page_over_the_limit_is_the_sites_413_page():
    r = client().post("/accounts/login/", {"login": "u" * LIMIT, "password": "x"})
    assert r.status_code == 413
    assert r["Content-Type"].startswith("text/html")
    page = r.content.decode()
    assert "<title>Too large · Burn-in</title>" in page and "2.5 MB" in page
    learner = UserFactory(username="learner")
    signed_in = client(learner).post("/capstone/preview/", {"markdown": "x" * (LIMIT + 1)})
    assert signed_in.status_code == 413 and "Too large" in signed_in.content.decode()


def test_the_schema_documents_413_on_every_operation():
    doc = project().document
    operations = [(p, m, op) for p, ops in doc["paths"].items() for m, op in ops.items()]
    missing = [f"{m.upper()} {p}" for p, m, op in operations if "413" not in op["responses"]]
    assert operations and missing == []
    ref = doc["paths"][TOKEN]["post"]["responses"]["413"]["content"]["application/json"]
    body = project().component(ref["schema"]["$ref"])
    error = project().component(body["properties"]["errors"]["items"]["$ref"])
    code = error["properties"]["code"]
    enum = project().component(code["$ref"])["enum"] if "$ref" in code else code["enum"]
    assert enum == ["request_too_large"]


class Clock:
    """The drain's clock, moved by the stream instead of by the machine."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now


class SlowStream(io.BytesIO):
    """A client dripping its body: each read of at most one chunk takes 0.5 s."""

    def __init__(self, body: bytes, clock: Clock) -> None:
        super().__init__(body)
        self.clock, self.reads = clock, 0

    def read(self, size=-1):
        self.clock.now += 0.5
        self.reads += 1
        return super().read(size)


def refused_request(stream: io.BytesIO) -> HttpRequest:
    request = HttpRequest()
    request._stream = stream
    return request


def test_the_refused_body_is_drained_within_its_bounds(monkeypatch):
    """Drained, so the client reads the 413 instead of a reset connection; but never
    more than DRAIN_BYTES, nor for longer than DRAIN_SECONDS."""
    body = b"x" * (LIMIT + 1)
    assert request_size.drain(refused_request(io.BytesIO(body)), len(body)) == len(body)
    huge = request_size.DRAIN_BYTES + 1
    stream = io.BytesIO(b"x" * huge)
    assert request_size.drain(refused_request(stream), huge) == 0 and stream.tell() == 0
    clock = Clock()
    monkeypatch.setattr(request_size, "time", clock)
    slow = SlowStream(b"x" * (20 * request_size._CHUNK), clock)
    drained = request_size.drain(refused_request(slow), 20 * request_size._CHUNK)
    reads = round(request_size.DRAIN_SECONDS / 0.5)  # then the deadline stops the drain
    assert 0 < reads < 20 and slow.reads == reads and drained == reads * request_size._CHUNK


def test_a_form_with_too_many_fields_is_a_400_not_a_500():
    """The same read by the token endpoint's throttle: a form of more fields than
    DATA_UPLOAD_MAX_NUMBER_FIELDS (1,000) raised TooManyFieldsSent, a 500, anonymous."""
    many = "&".join(f"f{i}=1" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1))
    form = many + "&username=u&password=x"
    r = client().post(TOKEN, form, content_type="application/x-www-form-urlencoded")
    assert r.status_code == 400, r.content[:300]
    [error] = r.json()["errors"]
    assert error["code"] == "parse_error" and "1000 fields" in error["detail"]
    assert_documented(r, "post", TOKEN)
    query = client().get("/api/courses/?" + many)
    assert query.status_code == 400 and query.json()["errors"][0]["code"] == "parse_error"
    assert_documented(query, "get", "/api/courses/")
