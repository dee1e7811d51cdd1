"""Over real HTTP (gunicorn, DEBUG off: tests/contract/live.py), a body over 2.5 MB is a
413 on every operation of the served schema, as the schema documents it, and the site's
413 page on a page; the connection still delivers the answer to a client that sent the
whole body first. Before, the token endpoint answered 500 to an anonymous 3 MB body."""

from __future__ import annotations

import http.client
import json
import re
from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.timeout(120)
SIZE = 3 * 1024 * 1024  # over Django's 2.5 MB DATA_UPLOAD_MAX_MEMORY_SIZE


def send(url: str, method: str, path: str, body: bytes, content_type: str):
    """One request on its own connection, the whole body sent before the answer is read
    (as urllib, requests and browsers do)."""
    where = urlsplit(url)
    conn = http.client.HTTPConnection(where.hostname, where.port, timeout=30)
    try:
        conn.request(method, path, body=body, headers={"Content-Type": content_type})
        response = conn.getresponse()
        return response.status, response.getheader("Content-Type"), response.read()
    finally:
        conn.close()


def test_every_operation_answers_a_too_large_body_with_its_documented_413(live_app, document):
    body = b'{"username": "' + b"u" * SIZE + b'", "password": "x"}'
    failures = []
    for template, operations in document.document["paths"].items():
        path = re.sub(r"\{[^}]+\}", "1", template)
        for method in operations:
            status, ctype, raw = send(live_app.url, method.upper(), path, body, "application/json")
            problems = document.problems(method, path, status, ctype, raw)
            if status != 413 or problems:
                failures.append(f"{method.upper()} {path} -> {status}: {problems or raw[:200]}")
            else:
                [error] = json.loads(raw)["errors"]
                assert error["code"] == "request_too_large"
    assert failures == [], "\n".join(failures[:20]) + live_app.errors_since(0)


def test_a_page_answers_a_too_large_form_with_the_413_page(live_app):
    form = b"username=" + b"u" * SIZE + b"&password=x"
    status, ctype, raw = send(
        live_app.url, "POST", "/accounts/login/", form, "application/x-www-form-urlencoded"
    )
    assert status == 413 and ctype.startswith("text/html")
    assert b"<h1>Too large</h1>" in raw and b"2.5 MB" in raw
