"""Check a raw HTTP response against the OpenAPI document that promised it, with jsonschema.

Independent of the generated client (whose models accept more than the schema allows) and
of schemathesis (which checks its own generated requests): given the method and path that
were called, the response's status must be documented for that operation, its content type
must be one the operation documents for that status, and its JSON body must validate
against that response's schema.

OpenAPI 3.0 schemas are not quite JSON Schema: `nullable: true` becomes a "null" type,
and boolean `exclusiveMinimum`/`exclusiveMaximum` become numbers; other OpenAPI keywords
(`readOnly`, `discriminator`, `example`, `x-*`) are annotations jsonschema ignores.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from functools import cache

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match


def to_json_schema(node):
    """A copy of an OpenAPI 3.0 schema (or any part of the document) as JSON Schema."""
    if isinstance(node, list):
        return [to_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: to_json_schema(value) for key, value in node.items()}
    for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        if out.get(exclusive) is True and bound in out:
            out[exclusive] = out.pop(bound)
        elif out.get(exclusive) is False:
            del out[exclusive]
    if out.pop("nullable", False):
        if "type" in out and not any(k in out for k in ("$ref", "allOf", "oneOf", "anyOf")):
            types = out["type"] if isinstance(out["type"], list) else [out["type"]]
            out["type"] = [*types, "null"]
            if "enum" in out and None not in out["enum"]:
                out["enum"] = [*out["enum"], None]
        else:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


@dataclass(frozen=True)
class Operation:
    method: str
    template: str
    regex: re.Pattern
    definition: dict


class OpenApiDocument:
    def __init__(self, document: dict):
        self.document = document
        self.components = to_json_schema(document.get("components", {}))
        self.operations: list[Operation] = []
        for template, item in document["paths"].items():
            pattern = re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template))
            for method, definition in item.items():
                if method in {"get", "put", "post", "patch", "delete", "head", "options"}:
                    self.operations.append(
                        Operation(method.upper(), template, re.compile(f"^{pattern}$"), definition)
                    )

    def operation(self, method: str, path: str) -> Operation | None:
        matches = [
            op for op in self.operations if op.method == method.upper() and op.regex.match(path)
        ]
        # A literal segment beats a parameter (/a/b/ over /a/{x}/): fewest braces first.
        return min(matches, key=lambda op: op.template.count("{"), default=None)

    @cache  # noqa: B019 - one document per session, a handful of (operation, status) pairs
    def _validator(self, method: str, template: str, status: str, media_type: str):
        definition = self._find(method, template)
        schema = definition["responses"][status]["content"][media_type].get("schema")
        if schema is None:
            return None
        root = {**to_json_schema(copy.deepcopy(schema)), "components": self.components}
        return Draft202012Validator(root, format_checker=Draft202012Validator.FORMAT_CHECKER)

    def _find(self, method: str, template: str) -> dict:
        return next(
            op.definition
            for op in self.operations
            if op.method == method and op.template == template
        )

    def problems(
        self, method: str, path: str, status: int, content_type: str | None, body: bytes
    ) -> list[str]:
        """Every way the response breaks the document; empty when it keeps its promise."""
        op = self.operation(method, path)
        if op is None:
            return [f"{method} {path} is no operation of the schema"]
        responses = op.definition.get("responses", {})
        key = next(
            (k for k in (str(status), f"{str(status)[0]}XX", "default") if k in responses), None
        )
        if key is None:
            return [f"status {status} is not documented (documented: {', '.join(responses)})"]
        content = responses[key].get("content") or {}
        if not content:
            return [] if not body else [f"status {status} documents no body, got {body[:200]!r}"]
        media_type = (content_type or "").split(";")[0].strip().lower()
        if media_type not in content:
            return [
                f"content type {content_type!r} is not documented for {status} "
                f"(documented: {', '.join(content)})"
            ]
        validator = self._validator(op.method, op.template, key, media_type)
        if validator is None:
            return []
        try:
            data = json.loads(body)
        except ValueError as exc:
            return [f"body is not JSON ({exc}): {body[:200]!r}"]
        return [
            _describe(e) for e in sorted(validator.iter_errors(data), key=lambda e: e.json_path)
        ]


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
