"""The access matrix (issue 18): every named route of the URL conf x every role, with
the status each role must get. Generated from the URL conf: a route without a row, an
API method without a row, or a row for a route that is gone fails the test by name.

Statuses, in ROLES order (world.py): anonymous, learner (owner), other_learner,
not_enrolled, other_instructor, other_manager, staff. `login` is the redirect to the
sign-in page (pages' anonymous cell); `-` is a cell not tried, only where the view reads
no user at all and one request costs a second (the schema). The API's anonymous cell is
a 401 carrying DRF's WWW-Authenticate header. Writes are sent with an empty (or
harmless) body: what a cell shows is the gate, so a 400 from the owner or staff means
"let through, then refused on the body". An object a role may not see is a 404, never a
403 (the rule of assess.selectors.access); a 403 is a signed-in user lacking a role for
a page that names no object (/teach/ for a learner), or one who may see the object but
not act on it (a learner deciding their own memo, revoking their own certificate)."""

from __future__ import annotations

import json

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from tests.access.routes import api_methods, route_names
from tests.access.table import TABLE
from tests.access.world import ROLES
from tests.openapi import assert_documented

pytestmark = pytest.mark.django_db

# API routes the OpenAPI document does not describe: itself, its docs, the catch-all
# 404 and the hardware router's root.
OUTSIDE_SCHEMA = {"schema", "api-docs", "api-not-found", "hardware_db:api-root"}

CASES = [
    (key, role)
    for key, row in TABLE.items()
    for role, expected in zip(ROLES, row.expect.split(), strict=False)
    if expected != "-"
]


def _request(world, key, role):
    name, method = key
    row = TABLE[key]
    url = reverse(name, kwargs=row.kwargs(world)) + row.query
    client = Client()
    if role != "anonymous":
        client.cookies[settings.SESSION_COOKIE_NAME] = world.sessions[role]
    if url.startswith("/api/") and method in ("POST", "PUT", "PATCH", "DELETE"):
        body = json.dumps(row.data if row.data is not None else {})
        return client.generic(method, url, body, content_type="application/json")
    if method == "POST":
        return client.post(url, row.data or {})
    return client.generic(method, url)


def observed(response) -> str:
    if response.status_code == 302 and response["Location"].startswith(reverse("account_login")):
        return "login"
    return str(response.status_code)


@pytest.mark.parametrize(
    "key,role", CASES, ids=[f"{name}:{method}-{role}" for (name, method), role in CASES]
)
def test_access(world, key, role):
    row = TABLE[key]
    expected = row.expect.split()[ROLES.index(role)]
    response = _request(world, key, role)
    assert observed(response) == expected, (row.what, response.content[:300])
    if expected == "401":
        assert response.has_header("WWW-Authenticate"), "a 401 must say how to authenticate"
    url = response.wsgi_request.get_full_path()
    if url.startswith("/api/") and key[0] not in OUTSIDE_SCHEMA:
        # The API is a contract: each cell's status (and body) is one its schema lists.
        assert_documented(response, key[1], url)


def test_every_route_has_a_row_and_every_row_a_route():
    names = route_names()
    rows = {name for name, _ in TABLE}
    assert sorted(names - rows) == [], "routes with no row in tests/access/table.py"
    assert sorted(rows - names) == [], "rows for routes that no longer exist"


def test_every_api_method_has_a_row():
    """A DRF view's every method (but HEAD/OPTIONS) is a row: a new PATCH on an old route
    fails here until its gate is in the table."""
    rows = set(TABLE)
    missing = sorted(
        (name, method)
        for name, methods in api_methods().items()
        for method in methods
        if (name, method) not in rows
    )
    assert missing == []


def test_every_row_has_a_status_per_role():
    bad = {key: row.expect for key, row in TABLE.items() if len(row.expect.split()) != len(ROLES)}
    assert bad == {}
