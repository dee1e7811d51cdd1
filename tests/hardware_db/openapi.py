"""Check API responses against the live OpenAPI schema (/api/schema/) with jsonschema.

The schema is what clients are generated from, so a response that breaks it (a null
where it promises a string, a slug outside its pattern) is a bug however sensible the
data. OpenAPI 3.0 schema objects are JSON Schema draft 4 plus a few keywords; the one
that changes what is valid is `nullable: true`, which `_as_json_schema` turns into a
null alternative. Everything else (`readOnly`, `discriminator`, `example`) is ignored by
a draft-4 validator, as it should be for responses.

Used by the hardware and curricula API tests (both import it from here).
"""

from __future__ import annotations

import functools
import re
from typing import Any
from urllib.parse import quote, urlsplit

from django.test import Client, override_settings
from jsonschema import Draft4Validator, FormatChecker
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

_URI = "urn:burn-in:openapi"
_NOT_SCHEMAS = {"example", "examples", "enum", "default"}


def _as_json_schema(node: Any) -> Any:
    """OpenAPI 3.0 schema object -> JSON Schema draft 4 (only `nullable` differs)."""
    if isinstance(node, list):
        return [_as_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "nullable":
            continue
        if key == "properties":
            out[key] = {name: _as_json_schema(sub) for name, sub in value.items()}
        elif key in _NOT_SCHEMAS:
            out[key] = value
        else:
            out[key] = _as_json_schema(value)
    if node.get("nullable") is True:
        if "type" in out and "enum" not in out:
            out["type"] = [out["type"], "null"]
        else:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


def _pointer(*parts: str) -> str:
    escaped = (part.replace("~", "~0").replace("/", "~1") for part in parts)
    return quote("/" + "/".join(escaped), safe="/~")


class OpenApi:
    """One OpenAPI document and the validators of its operations' responses."""

    def __init__(self, document: dict[str, Any]):
        self.document = document
        resource = Resource.from_contents(_as_json_schema(document), default_specification=DRAFT4)
        self._registry = Registry().with_resource(_URI, resource)
        self._templates = {
            template: re.compile("^" + re.sub(r"\{[^/]+\}", "[^/]+", template) + "$")
            for template in document["paths"]
        }

    def template(self, path: str) -> str:
        """The schema path (`/api/hardware/models/{slug}/`) that serves a request path."""
        path = urlsplit(path).path
        if path in self._templates:
            return path
        matches = [t for t, regex in self._templates.items() if regex.match(path)]
        assert matches, f"no operation in the schema serves {path}"
        return min(matches, key=lambda t: t.count("{"))

    def operation(self, path: str, method: str = "get") -> dict[str, Any]:
        return self.document["paths"][self.template(path)][method]

    def errors(self, path: str, status: int, body: Any, method: str = "get") -> list[str]:
        """Why `body`, answered with `status` to `method path`, breaks the schema."""
        template = self.template(path)
        responses = self.document["paths"][template][method]["responses"]
        if str(status) not in responses:
            return [f"{method.upper()} {template} does not document status {status}"]
        pointer = _pointer(
            "paths", template, method, "responses", str(status), "content", "application/json"
        )
        validator = Draft4Validator(
            {"$ref": f"{_URI}#{pointer}/schema"},
            registry=self._registry,
            format_checker=FormatChecker(),
        )
        return [
            f"{path} [{status}] at /{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in sorted(validator.iter_errors(body), key=lambda e: list(e.absolute_path))
        ]

    def check(self, path: str, response, method: str = "get") -> Any:
        """Assert the response is JSON that its operation's schema allows; return it."""
        assert response["Content-Type"].startswith("application/json"), path
        body = response.json()
        problems = self.errors(path, response.status_code, body, method)
        assert not problems, "\n".join(problems[:20])
        return body

    def component(self, ref: str) -> dict[str, Any]:
        return self.document["components"]["schemas"][ref.rsplit("/", 1)[-1]]

    def examples(self, path: str, method: str = "get") -> dict[str, Any]:
        """The documented example values of an operation's 200 response, by name."""
        content = self.operation(path, method)["responses"]["200"]["content"]
        found = content["application/json"].get("examples", {})
        return {name: example["value"] for name, example in found.items()}

    def description_gaps(self, path: str, method: str = "get") -> list[str]:
        """What a client author would find unexplained in one operation: its summary and
        description, its parameters, and every field of what it answers with 200.

        The page envelope (`Paginated*`: count, next, previous, results) is DRF's and is
        explained once in the API's own description, so it is not asked for here.
        """
        template = self.template(path)
        operation = self.document["paths"][template][method]
        where = f"{method.upper()} {template}"
        gaps = [
            f"{where}: no {key}" for key in ("summary", "description") if not operation.get(key)
        ]
        gaps += [
            f"{where}: parameter {p['name']} has no description"
            for p in operation.get("parameters", [])
            if not p.get("description")
        ]
        ok = operation["responses"]["200"]["content"]["application/json"]["schema"]
        seen: set[str] = set()
        pending = [ok]
        while pending:
            node = pending.pop()
            if isinstance(node, list):
                pending.extend(node)
                continue
            if not isinstance(node, dict):
                continue
            ref = node.get("$ref")
            if ref and ref not in seen:
                seen.add(ref)
                component = self.component(ref)
                name = ref.rsplit("/", 1)[-1]
                if not name.startswith("Paginated"):
                    gaps += [
                        f"{where}: {name}.{field} has no description"
                        for field, sub in component.get("properties", {}).items()
                        if not sub.get("description")
                    ]
                pending.append(component)
            pending.extend(v for k, v in node.items() if k not in {"example", "enum"})
        return gaps


@functools.cache
def live() -> OpenApi:
    """The project's schema as /api/schema/ serves it (built once per test process, from
    the project's URLconf whatever the calling test mounts)."""
    with override_settings(ROOT_URLCONF="config.urls"):
        response = Client().get("/api/schema/", {"format": "json"})
    assert response.status_code == 200, response.content[:500]
    return OpenApi(response.json())
