"""Hostile input on every write operation of the API (issue 18, item 1): each operation the
generated schema lists with POST, PUT, PATCH or DELETE gets hostile values at each of its
body fields, and hostile whole bodies. A body the schema refuses is a 4xx in the API's
error format, documented by the schema, and changes no row of any table; any other body
gets no 5xx and a documented answer (tests/badinput/hostile.py has the oracle).

An answer the reader cannot read is a schema-valid string the project refuses by its own
rule: a 400 `unreadable_answer` with `"valid": false`, nothing stored, no try spent (the
web page keeps the typed text in the box: tests/badinput/test_forms.py).

Each example runs in a savepoint rolled back after it, so every example meets the same
world; the cache (the sign-in throttles) is cleared too.
"""

from __future__ import annotations

import json

import pytest
from django.core.cache import cache
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from problems.engine.reader import read_answer
from tests.badinput import hostile as h
from tests.badinput.operations import (
    TARGETS,
    changed,
    error_format_problems,
    snapshot,
    user_of,
    write_operations,
)
from tests.openapi import project

pytestmark = pytest.mark.django_db

OPERATIONS = write_operations(project())
WITH_BODY = sorted(op for op, schema in OPERATIONS.items() if schema is not None)
WITHOUT_BODY = sorted(op for op, schema in OPERATIONS.items() if schema is None)
ANSWER = ("POST", "/api/attempts/{id}/responses/")

CHEAP = settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _id(op) -> str:
    return f"{op[0]} {op[1]}"


def client_for(world, role) -> APIClient:
    client = APIClient()
    user = user_of(world, role)
    if user is not None:
        client.force_authenticate(user)
    return client


def send(world, op, data: bytes, *, watch: bool = True):
    """The operation's response to `data` sent as JSON, inside a savepoint rolled back
    after it: (response, tables it changed, when `watch`)."""
    target = TARGETS[op]
    cache.clear()
    with transaction.atomic():
        before = snapshot() if watch else {}
        response = client_for(world, target.role).generic(
            op[0], target.path(world), data, content_type="application/json"
        )
        after = snapshot() if watch else {}
        transaction.set_rollback(True)
    return response, changed(before, after)


def check(op, response, touched, refuse: bool, what: str) -> None:
    where = f"{_id(op)} with {what} -> {response.status_code}: {response.content[:300]!r}"
    assert response.status_code < 500, where
    problems = project().problems(
        op[0], op[1], response.status_code, response.get("Content-Type"), response.content
    )
    assert not problems, "\n".join([where, *problems[:10]])
    if response.status_code >= 400:
        assert not error_format_problems(response.json()), where
    if refuse:
        assert 400 <= response.status_code < 500, where
        assert not touched, f"{where}\nchanged: {touched}"


# ------------------------------------------------------------------------ coverage


def test_every_write_operation_has_a_target():
    assert len(OPERATIONS) >= 20  # the schema was read, not an empty one
    assert set(OPERATIONS) == set(TARGETS), {
        "write operations without a target": sorted(set(OPERATIONS) - set(TARGETS)),
        "targets no longer in the schema": sorted(set(TARGETS) - set(OPERATIONS)),
    }
    for op in OPERATIONS:
        assert (OPERATIONS[op] is None) == (TARGETS[op].body is None), op


@pytest.mark.parametrize("op", WITH_BODY, ids=_id)
def test_every_body_field_is_in_the_base_body(world, op):
    body = TARGETS[op].body(world)
    paths = h.field_paths(OPERATIONS[op], project())
    assert paths
    assert [p for p in paths if not h.has_path(body, p)] == []
    assert h.schema_validator(OPERATIONS[op], project()).is_valid(body)


@pytest.mark.parametrize("op", sorted(OPERATIONS), ids=_id)
def test_the_base_request_succeeds(world, op):
    """Hostile values are refused for what they are: the same request without them works."""
    target = TARGETS[op]
    data = json.dumps(target.body(world)).encode() if target.body else b""
    response, touched = send(world, op, data)
    assert response.status_code < 300, (response.status_code, response.content[:500])
    check(op, response, touched, refuse=False, what="its base body")


# ------------------------------------------------------------------------ hostility


def hostile_case(world, op, path, value, validator) -> str | None:
    """Send one hostile value at one path; the failure, or None."""
    decoded, data = h.splice(TARGETS[op].body(world), path, value)
    refuse = h.must_refuse(validator, decoded, value)
    response, touched = send(world, op, data, watch=refuse)
    what = f"{'.'.join(map(str, path)) or 'the body'} = {value.name} {value.value!r:.60}"
    try:
        check(op, response, touched, refuse, what)
        if op == ANSWER and path == ("answer",) and not refuse:
            check_answer(response, touched, value.value, what)
    except AssertionError as exc:
        return str(exc).split("\nassert")[0]
    return None


@pytest.mark.parametrize("op", WITH_BODY, ids=_id)
def test_every_catalogued_value_at_every_field(world, op):
    """The whole catalogue (hostile.CATALOGUE) at each field path, exhaustively: one
    table per operation, every failure listed."""
    validator = h.schema_validator(OPERATIONS[op], project())
    failures = [
        failure
        for path in h.field_paths(OPERATIONS[op], project())
        for value in h.CATALOGUE
        if (failure := hostile_case(world, op, path, value, validator))
    ]
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("op", sorted(OPERATIONS), ids=_id)
def test_hostile_whole_bodies(world, op):
    """Not an object, not JSON, empty, too deep: refused where the operation reads a body
    (an empty body reads as `{}`), and never a 5xx where it reads none."""
    schema = OPERATIONS[op]
    validator = h.schema_validator(schema, project()) if schema else None
    failures = []
    for value in h.BODIES:
        decoded, data = h.splice({}, (), value)
        refuse = schema is not None and h.must_refuse(
            validator, {} if value.raw == "" else decoded, value
        )
        response, touched = send(world, op, data, watch=refuse)
        try:
            check(op, response, touched, refuse, value.name)
        except AssertionError as exc:
            failures.append(str(exc).split("\nassert")[0])
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("op", WITH_BODY, ids=_id)
def test_generated_values_at_any_field(world, op):
    """Values hypothesis makes up (any code point, any size of number, nesting) at any
    field path, judged by the same oracle."""
    validator = h.schema_validator(OPERATIONS[op], project())
    paths = h.field_paths(OPERATIONS[op], project())

    @CHEAP
    @given(path=st.sampled_from(paths), value=h.generated_values())
    def run(path, value):
        failure = hostile_case(world, op, path, value, validator)
        assert failure is None, failure

    run()


@pytest.mark.parametrize("op", WITH_BODY, ids=_id)
def test_unknown_fields_are_ignored(world, op):
    """The schemas do not close their objects (no additionalProperties: false), so an
    unknown field is ignored, not refused: the request succeeds as without it."""
    body = {**TARGETS[op].body(world), "zz_unknown": {"nested": [1, {"deep": None}]}}
    response, _ = send(world, op, json.dumps(body).encode())
    assert response.status_code < 300, (response.status_code, response.content[:300])


# ------------------------------------------------------------------------ answers


def check_answer(response, touched, text: str, what: str) -> None:
    """A schema-valid answer is stored when the reader reads it and otherwise refused with
    `valid: false` and the reader's own reason, nothing stored."""
    reading = read_answer(text, default_unit="GB")
    if reading.ok:
        assert response.status_code == 201, what
        return
    assert response.status_code == 400, what
    body = response.json()
    assert body["valid"] is False, what
    [error] = body["errors"]
    assert (error["code"], error["attr"]) == ("unreadable_answer", "answer"), what
    assert error["detail"], what
    assert not touched, f"{what}: changed {touched}"


UNREADABLE = {
    "٣٫٥": "Type the digits 0 to 9",
    "１２": "Type the digits 0 to 9",
    "1,5": "Commas may only separate groups of three digits",
    "1.234,5": "Commas may only separate groups of three digits",
    "NaN": "finite number",
    "Infinity": "finite number",
    "1e999": "too large",
    "2**64": "not an expression",
    "__import__('os').system('true')": "not an expression",
    "x" * 1000: "too long",
}


@pytest.mark.parametrize("text", UNREADABLE, ids=lambda t: t[:20])
def test_unreadable_answers_are_400_valid_false_with_the_reason(world, text):
    body = {**TARGETS[ANSWER].body(world), "answer": text}
    response, touched = send(world, ANSWER, json.dumps(body).encode())
    check_answer(response, touched, text, text[:20])
    assert UNREADABLE[text].lower() in response.json()["errors"][0]["detail"].lower()
