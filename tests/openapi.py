"""Check HTTP responses against the project's OpenAPI 3.0 document, with jsonschema.

The schema is what clients are generated from, so a response that breaks it (a status it
does not list, a content type it does not name, a null where it promises a string, a slug
outside its pattern) is a bug however sensible the data. One checker serves every suite:
the in-process API tests check Django test-client responses against `project()`, the
schema drf-spectacular generates from config.urls; the contract tests build an
`OpenApiDocument` from the schema a live server served and check raw httpx exchanges,
independently of the generated client (whose models accept more than the schema allows)
and of schemathesis (which checks only the requests it generates).

OpenAPI 3.0 schema objects are not quite JSON Schema; `to_json_schema` bridges the gap.
The other OpenAPI keywords (`readOnly`, `discriminator`, `example`, `x-*`) are annotations
a draft 2020-12 validator ignores, as it should for responses.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any
from urllib.parse import urlsplit

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

JSON = "application/json"
# Values that are data or annotations, not schemas: copied untouched, so an example holding
# a field called `nullable` (or a discriminator's mapping) is never rewritten.
_VERBATIM = {"example", "examples", "enum", "default", "const", "discriminator"}


def to_json_schema(node: Any) -> Any:
    """A converted copy of an OpenAPI 3.0 schema object.

    `nullable: true` admits null: as a "null" type (and a None in the enum) when the schema
    has its own type, else as an anyOf, since a $ref or a composition cannot be widened in
    place. Boolean `exclusiveMinimum`/`exclusiveMaximum` (draft 4's form) become the
    numeric bounds 2020-12 expects; `properties` maps field names, which are not keywords.
    """
    if isinstance(node, list):
        return [to_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _VERBATIM:
            out[key] = value
        elif key in ("properties", "patternProperties") and isinstance(value, dict):
            out[key] = {name: to_json_schema(sub) for name, sub in value.items()}
        else:
            out[key] = to_json_schema(value)
    for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        if out.get(exclusive) is True and bound in out:
            out[exclusive] = out.pop(bound)
        elif isinstance(out.get(exclusive), bool):
            del out[exclusive]  # false, or true with no bound: no constraint either way
    if out.pop("nullable", False):
        if "type" in out and not {"$ref", "allOf", "oneOf", "anyOf"} & out.keys():
            types = out["type"] if isinstance(out["type"], list) else [out["type"]]
            out["type"] = [*types, "null"]
            if "enum" in out and None not in out["enum"]:
                out["enum"] = [*out["enum"], None]
        else:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


class OpenApiDocument:
    """One OpenAPI 3.0 document: its operations by request path, and what they may answer."""

    def __init__(self, document: dict[str, Any]):
        self.document = document
        schemas = document.get("components", {}).get("schemas", {})
        # Embedded beside each response schema, so "#/components/schemas/X" resolves in place.
        self._components = {"schemas": {name: to_json_schema(s) for name, s in schemas.items()}}
        self._routes = {
            template: re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$")
            for template in document["paths"]
        }
        self._validators: dict[tuple[str, ...], Draft202012Validator | None] = {}

    def template(self, path: str, method: str | None = None) -> str | None:
        """The path template (`/api/quizzes/{id}/`) that serves a request path (its query
        ignored), or the template itself; with `method`, only templates having it.

        A literal segment beats a parameter (`/a/new/` over `/a/{x}/`), as in the URLconf.
        """
        path = urlsplit(path).path
        if "{" in path:  # a template names itself exactly, or no operation
            operations = self.document["paths"].get(path, {})
            return path if method is None or method.lower() in operations else None
        matches = [
            template
            for template, regex in self._routes.items()
            if regex.match(path)
            and (method is None or method.lower() in self.document["paths"][template])
        ]
        return min(matches, key=lambda t: t.count("{"), default=None)

    def operation(self, method: str, path: str) -> dict[str, Any]:
        """The operation object serving `method path` (a request path or a template)."""
        template = self.template(path, method)
        assert template, f"no {method.upper()} operation in the schema serves {path}"
        return self.document["paths"][template][method.lower()]

    def problems(
        self, method: str, path: str, status: int, content_type: str | None, body: Any
    ) -> list[str]:
        """Every way a response breaks the document; empty when it keeps its promise.

        `body` is the raw bytes received, or an already decoded JSON value (an example).
        Status keys fall back to `4XX` and `default`, as OpenAPI defines them.
        """
        template = self.template(path, method)
        if template is None:
            return [f"{method.upper()} {path} is no operation of the schema"]
        responses = self.document["paths"][template][method.lower()].get("responses", {})
        candidates = (str(status), f"{str(status)[0]}XX", "default")
        key = next((k for k in candidates if k in responses), None)
        if key is None:
            documented = ", ".join(responses)
            return [f"status {status} is not documented for {template} (documented: {documented})"]
        content = responses[key].get("content") or {}
        if not content:
            return [f"status {status} documents no body, got {body!r:.200}"] if body else []
        media_type = (content_type or "").split(";")[0].strip().lower()
        if media_type not in content:
            return [
                f"content type {content_type!r} is not documented for {status} "
                f"(documented: {', '.join(content)})"
            ]
        if isinstance(body, bytes | bytearray) and media_type.endswith("json"):
            try:
                body = json.loads(body)
            except ValueError as exc:
                return [f"body is not JSON ({exc}): {body!r:.200}"]
        validator = self._validator(template, method.lower(), key, media_type)
        if validator is None:
            return []
        return [
            _describe(e) for e in sorted(validator.iter_errors(body), key=lambda e: e.json_path)
        ]

    def _validator(self, *where: str) -> Draft202012Validator | None:
        """The validator of one response's schema (paths → template → method → status →
        media type), built once: the hardware tests validate hundreds of records with it."""
        if where not in self._validators:
            template, method, status, media_type = where
            response = self.document["paths"][template][method]["responses"][status]
            schema = response["content"][media_type].get("schema")
            self._validators[where] = (
                None
                if schema is None
                else Draft202012Validator(
                    {**to_json_schema(schema), "components": self._components},
                    format_checker=Draft202012Validator.FORMAT_CHECKER,
                )
            )
        return self._validators[where]

    def component(self, ref: str) -> dict[str, Any]:
        """A schema component by name or by `$ref` (`#/components/schemas/Name`)."""
        return self.document["components"]["schemas"][ref.rsplit("/", 1)[-1]]

    def examples(self, method: str, path: str) -> dict[str, Any]:
        """The documented example values of an operation's 200 response, by name."""
        content = self.operation(method, path)["responses"]["200"]["content"][JSON]
        return {name: example["value"] for name, example in content.get("examples", {}).items()}

    def description_gaps(self, method: str, path: str) -> list[str]:
        """What a client author would find unexplained in one operation: its summary and
        description, its parameters, and every field of what it answers with 200.

        The page envelope (`Paginated*`: count, next, previous, results) is DRF's and is
        explained once in the API's own description, so it is not asked for here.
        """
        operation = self.operation(method, path)
        where = f"{method.upper()} {self.template(path, method)}"
        gaps = [
            f"{where}: no {key}" for key in ("summary", "description") if not operation.get(key)
        ]
        gaps += [
            f"{where}: parameter {p['name']} has no description"
            for p in operation.get("parameters", [])
            if not p.get("description")
        ]
        seen: set[str] = set()
        pending = [operation["responses"]["200"]["content"][JSON]["schema"]]
        while pending:
            node = pending.pop()
            if isinstance(node, list):
                pending.extend(node)
            elif isinstance(node, dict):
                ref = node.get("$ref")
                if ref and ref not in seen:
                    seen.add(ref)
                    name, component = ref.rsplit("/", 1)[-1], self.component(ref)
                    if not name.startswith("Paginated"):
                        gaps += [
                            f"{where}: {name}.{field} has no description"
                            for field, sub in component.get("properties", {}).items()
                            if not sub.get("description")
                        ]
                    pending.append(component)
                pending.extend(v for k, v in node.items() if k not in _VERBATIM)
        return gaps


@functools.cache
def project() -> OpenApiDocument:
    """The project's schema, generated in process from config.urls whatever URLconf the
    calling test mounts, once per test process (it takes a second). It is what /api/schema/
    serves, but for `info.version`, which the view suffixes with the request's version."""
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.renderers import OpenApiJsonRenderer

    schema = SchemaGenerator(urlconf="config.urls").get_schema(request=None, public=True)
    return OpenApiDocument(json.loads(OpenApiJsonRenderer().render(schema)))


def assert_documented(response, method: str, path: str) -> Any:
    """Assert a Django test-client response is what the project's schema documents for
    `method path` (a request path or a template); return its JSON body (None if empty)."""
    problems = project().problems(
        method, path, response.status_code, response.get("Content-Type"), response.content
    )
    where = f"{method.upper()} {path} -> {response.status_code}"
    assert not problems, "\n".join([where, *problems[:20]])
    return json.loads(response.content) if response.content else None


def _describe(error) -> str:
    """One line per violation; for oneOf/anyOf, also the closest branch's complaint."""
    where = "/".join(map(str, error.schema_path))
    text = f"at {error.json_path}: {_short(error.message)} (schema: {where})"
    if error.context:
        closest = best_match(error.context)
        text += f"; closest: at {closest.json_path}: {_short(closest.message)}"
    return text


def _short(message: str, limit: int = 300) -> str:
    return message if len(message) <= limit else message[: limit - 5] + " ..."
