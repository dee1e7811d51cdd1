"""The project's OpenAPI schema, generated once per test process, and a check that a real
response is what the schema documents for its operation: its status is listed, and its
JSON body validates against the documented schema (OpenAPI 3.0's `nullable` read as
JSON Schema's null type)."""

from __future__ import annotations

import functools
import json

import jsonschema
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7

SCHEMA_URI = "urn:burn-in:openapi"


@functools.cache
def openapi() -> dict:
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.renderers import OpenApiJsonRenderer

    schema = SchemaGenerator(urlconf="config.urls").get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(schema))


def operation(method: str, path: str) -> dict:
    return openapi()["paths"][path][method.lower()]


def _nullable(node):
    """OpenAPI 3.0 -> JSON Schema: `nullable: true` admits null; refs made absolute."""
    if isinstance(node, list):
        return [_nullable(x) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: _nullable(v) for k, v in node.items() if k not in ("nullable", "discriminator")}
    if "$ref" in out:
        out["$ref"] = SCHEMA_URI + out["$ref"]
    if node.get("nullable"):
        if "type" in out and "enum" not in out:
            out["type"] = [out["type"], "null"]
        else:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


@functools.cache
def _registry() -> Registry:
    document = _nullable(openapi())
    return Registry().with_resource(
        SCHEMA_URI, Resource.from_contents(document, default_specification=DRAFT7)
    )


def assert_documented(response, method: str, path: str) -> None:
    """The response's status is one the operation documents, and its body is valid."""
    responses = operation(method, path)["responses"]
    status = str(response.status_code)
    assert status in responses, (method, path, status, sorted(responses))
    content = responses[status].get("content")
    if not content:
        assert not response.content, response.content
        return
    schema = _nullable(content["application/json"]["schema"])
    jsonschema.Draft7Validator(schema, registry=_registry()).validate(response.json())
