"""Authorise before the body (issue 33 item 12): a write the caller may not make is
refused for who they are, whatever they sent.

`POST /api/quizzes/` by a learner with a body naming an unknown course answered 400
"Unknown course" where 403 is right: the body was judged before the caller. Every write
cell of the access matrix (tests/access/table.py) whose status is a refusal (401, 403,
404, the sign-in redirect) is sent here again with bodies that would fail on their own:
text that is not JSON, a JSON list, every field an object, and each request example the
schema documents for the operation (real-looking values that name things this world
does not have, as the learner's unknown course did). Pages get a form of such values.
The status must be the cell's, and the refusal must add no row anywhere.
"""

from __future__ import annotations

import json

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from tests.access.table import TABLE
from tests.access.test_matrix import observed
from tests.access.world import ROLES
from tests.access.writes import row_counts
from tests.openapi import JSON, project

pytestmark = pytest.mark.django_db

REFUSALS = {"401", "403", "404", "login"}
WRITES = ("POST", "PUT", "PATCH", "DELETE")

# What a page's form might hold, each value wrong or naming nothing of this world.
FORM = {
    "markdown": "x" * 20,
    "course": "no-such-course",
    "lessons": "no-such-lesson",
    "questions": "many",
    "answer": "1 GB",
    "part": "no-such-part",
    "confirm": "1",
    "reason": "",
    "decision": "approve",
    "comment": "x",
    "version": "999",
    "username": "nobody-here",
    "action": "close",
}

CELLS = [
    (name, method, role)
    for (name, method), row in TABLE.items()
    if method in WRITES
    for role, expected in zip(ROLES, row.expect.split(), strict=True)
    if expected in REFUSALS
]


def _api_bodies(method: str, url: str) -> dict[str, bytes]:
    bodies = {"not JSON": b"{", "a JSON list": b"[]"}
    content = project().operation(method, url).get("requestBody", {}).get("content", {})
    if JSON not in content:
        return bodies
    schema = content[JSON].get("schema", {})
    if "$ref" in schema:
        schema = project().component(schema["$ref"])
    bodies["every field an object"] = json.dumps(
        {field: {"x": 1} for field in schema.get("properties", {})}
    ).encode()
    for name, example in content[JSON].get("examples", {}).items():
        bodies[f"example {name!r}"] = json.dumps(example["value"]).encode()
    return bodies


@pytest.mark.parametrize(
    "name,method,role", CELLS, ids=[f"{name}:{method}-{role}" for name, method, role in CELLS]
)
def test_a_refused_write_is_refused_whatever_its_body(world, name, method, role):
    row = TABLE[(name, method)]
    expected = row.expect.split()[ROLES.index(role)]
    url = reverse(name, kwargs=row.kwargs(world)) + row.query
    client = Client()
    if role != "anonymous":
        client.cookies[settings.SESSION_COOKIE_NAME] = world.sessions[role]
    if url.startswith("/api/"):
        sends = {
            what: lambda body=body: client.generic(
                method, url, body, content_type="application/json"
            )
            for what, body in _api_bodies(method, url).items()
        }
    else:
        sends = {"a form of wrong values": lambda: client.post(url, FORM)}
    assert sends
    wrong = []
    for what, send in sends.items():
        before = row_counts()
        response = send()
        if observed(response) != expected or row_counts() != before:
            wrong.append(f"{what}: {observed(response)} {response.content[:200]!r}")
    assert wrong == [], f"{method} {name} as {role} must be {expected}"


def test_the_sweep_sends_documented_examples():
    """The examples are what reaches past the serializer into the services: at least the
    quiz's, the memo's and the extension's are sent."""
    urls = {"/api/quizzes/": "POST", "/api/memos/": "POST"}
    for url, method in urls.items():
        assert any(k.startswith("example") for k in _api_bodies(method, url)), url
