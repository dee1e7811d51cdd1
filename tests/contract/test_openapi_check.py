"""The harness's own response checker (tests/openapi.py) on a small OpenAPI 3.0 document:
it must catch what the contract tests rely on it to catch. No server, no database."""

from __future__ import annotations

import json

import pytest

from tests.openapi import OpenApiDocument, to_json_schema

JSON = "application/json"
DOCUMENT = {
    "openapi": "3.0.3",
    "paths": {
        "/api/things/{slug}/": {
            "get": {
                "responses": {
                    "200": {"content": {JSON: {"schema": {"$ref": "#/components/schemas/Thing"}}}},
                    "404": {"content": {JSON: {"schema": {"$ref": "#/components/schemas/Error"}}}},
                }
            },
            "delete": {"responses": {"204": {"description": "gone"}}},
        },
        "/api/things/new/": {
            "get": {"responses": {"200": {"content": {JSON: {"schema": {"type": "integer"}}}}}}
        },
    },
    "components": {
        "schemas": {
            "Thing": {
                "type": "object",
                "required": ["slug", "link", "kind"],
                "properties": {
                    "slug": {"type": "string", "pattern": "^[a-z0-9-]+$"},
                    "link": {"type": "string", "nullable": True},
                    "kind": {"nullable": True, "oneOf": [{"$ref": "#/components/schemas/Kind"}]},
                    "ratio": {"type": "number", "minimum": 0, "exclusiveMinimum": True},
                },
            },
            "Kind": {"type": "string", "enum": ["a", "b"]},
            "Error": {
                "type": "object",
                "required": ["type"],
                "properties": {"type": {"type": "string", "enum": ["client_error"]}},
            },
        }
    },
}


@pytest.fixture(scope="module")
def doc():
    return OpenApiDocument(DOCUMENT)


def problems(doc, status, body, *, path="/api/things/h100/", method="GET", ctype=JSON):
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return doc.problems(method, path, status, ctype, raw)


def test_a_kept_promise_has_no_problems(doc):
    assert problems(doc, 200, {"slug": "h-100", "link": None, "kind": None, "ratio": 1}) == []
    assert problems(doc, 200, {"slug": "h-100", "link": "x", "kind": "a"}) == []
    assert problems(doc, 204, b"", method="DELETE") == []


def test_broken_promises_are_named(doc):
    (null,) = problems(doc, 200, {"slug": "h-100", "link": 3, "kind": "a"})
    assert "$.link" in null
    (pattern,) = problems(doc, 200, {"slug": "llama-3.1-8b", "link": None, "kind": "a"})
    assert "$.slug" in pattern and "does not match" in pattern
    (exclusive,) = problems(doc, 200, {"slug": "a", "link": None, "kind": "a", "ratio": 0})
    assert "$.ratio" in exclusive
    (enum,) = problems(doc, 200, {"slug": "a", "link": None, "kind": "c"})
    assert "$.kind" in enum and "closest" in enum


def test_status_content_type_and_body_shape(doc):
    assert "status 400 is not documented" in problems(doc, 400, {"type": "client_error"})[0]
    html = problems(doc, 404, b"<h1>Not Found</h1>", ctype="text/html; charset=utf-8")
    assert "content type 'text/html; charset=utf-8' is not documented" in html[0]
    assert "not JSON" in problems(doc, 404, b"oops")[0]
    assert "documents no body" in problems(doc, 204, b"{}", method="DELETE")[0]
    assert "no operation" in problems(doc, 200, {}, path="/api/other/")[0]


def test_a_literal_segment_beats_a_parameter(doc):
    assert doc.template("/api/things/new/", "GET") == "/api/things/new/"
    assert problems(doc, 200, 7, path="/api/things/new/") == []


def test_openapi_nullable_and_bounds_become_json_schema():
    assert to_json_schema({"type": "string", "nullable": True}) == {"type": ["string", "null"]}
    assert to_json_schema({"enum": ["a"], "type": "string", "nullable": True}) == {
        "enum": ["a", None],
        "type": ["string", "null"],
    }
    assert to_json_schema({"allOf": [{"$ref": "#/x"}], "nullable": True}) == {
        "anyOf": [{"allOf": [{"$ref": "#/x"}]}, {"type": "null"}]
    }
    assert to_json_schema({"maximum": 5, "exclusiveMaximum": True}) == {"exclusiveMaximum": 5}


def test_field_names_and_example_values_are_not_keywords():
    example = {"nullable": True, "minimum": 1, "exclusiveMinimum": True}
    schema = {"properties": {"nullable": {"type": "integer"}}, "example": example}
    assert to_json_schema(schema) == schema
