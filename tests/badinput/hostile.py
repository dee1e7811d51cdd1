"""Hostile values, where they go in a request body, and what the API must answer to them.

The oracle is the request body's own schema (what /api/schema/ promises clients), plus the
two rules no JSON Schema states: a string holding a NUL or a lone surrogate is refused, and
a body that is not JSON (`NaN`, `Infinity`, an integer of more digits than Python reads)
is a parse error. A body the schema refuses must get a 4xx in the API's error format and
change nothing; a body the schema admits (a title "NaN" is a fine title) must get no 5xx
and be answered as documented.

A value is spliced into an otherwise valid body at one field path (`slots.0.points`), so
the refusal, when it comes, is the hostile value's doing. Values Python's json cannot
write as intended (`1e999`, `-0`, a 5,000-digit integer) are spliced as raw JSON text.
"""

from __future__ import annotations

import copy
import json
import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from hypothesis import strategies as st
from jsonschema import Draft202012Validator, FormatChecker

from tests.openapi import OpenApiDocument, to_json_schema

_PLACEHOLDER = "\u0001hostile\u0001"


@dataclass(frozen=True)
class Hostile:
    """One value to splice in: `value` as a JSON parser would return it, and `raw`, the
    JSON text to send when json.dumps would not write it so; `not_json` when no JSON
    parser should accept the text at all."""

    name: str
    value: Any
    raw: str | None = None
    not_json: bool = False

    def __repr__(self) -> str:  # hypothesis prints it: keep 100k characters out of logs
        return f"Hostile({self.name})"


HUGE_DIGITS = "1" + "0" * 5000  # past Python's int-from-text limit (4,300 digits)

CATALOGUE: tuple[Hostile, ...] = (
    Hostile("100k-char string", "x" * 100_000),
    Hostile("100k digits as text", "9" * 100_000),
    Hostile("'NaN' as text", "NaN"),
    Hostile("'Infinity' as text", "Infinity"),
    Hostile("'1e999' as text", "1e999"),
    Hostile("NaN literal", math.nan, raw="NaN", not_json=True),
    Hostile("Infinity literal", math.inf, raw="Infinity", not_json=True),
    Hostile("-Infinity literal", -math.inf, raw="-Infinity", not_json=True),
    Hostile("1e999", math.inf, raw="1e999"),
    Hostile("-1e999", -math.inf, raw="-1e999"),
    Hostile("1e-999", 0.0, raw="1e-999"),
    Hostile("-0", 0, raw="-0"),
    Hostile("-0.0", -0.0, raw="-0.0"),
    Hostile("10**400", 10**400),
    Hostile("-(10**400)", -(10**400)),
    Hostile("5000-digit integer", None, raw=HUGE_DIGITS, not_json=True),
    Hostile("arabic-indic digits", "٣٫٥"),
    Hostile("fullwidth digits", "１２"),
    Hostile("locale comma", "1,5"),
    Hostile("locale thousands", "1.234,5"),
    Hostile("digits as text", "12"),
    Hostile("nested object", {"a": {"b": [1, {"c": None}]}}),
    Hostile("operator object", {"$gt": ""}),
    Hostile("array", [1, "2", None]),
    Hostile("nested arrays", [[[[]]]]),
    Hostile("true", True),
    Hostile("false", False),
    Hostile("1.5", 1.5),
    Hostile("1.0", 1.0),
    Hostile("0", 0),
    Hostile("empty string", ""),
    Hostile("blank string", " \t\n"),
    Hostile("null", None),
    Hostile("NUL byte", "a\x00b"),
    Hostile("lone surrogate", "\ud800"),
    Hostile("python code", "__import__('os').system('true')"),
    Hostile("sympy code", "Integer(2)**10**10**10"),
)

# Whole bodies in place of the object an operation reads.
BODIES: tuple[Hostile, ...] = (
    Hostile("empty body", None, raw=""),
    Hostile("empty object", {}),
    Hostile("array body", [{"a": 1}]),
    Hostile("null body", None, raw="null"),
    Hostile("string body", "x"),
    Hostile("number body", 42),
    Hostile("NaN body", math.nan, raw="NaN", not_json=True),
    Hostile("truncated body", None, raw='{"a": ', not_json=True),
    Hostile("deep body", None, raw="[" * 5000 + "]" * 5000, not_json=True),
)


def generated_values() -> st.SearchStrategy[Hostile]:
    """Values hypothesis makes up, of every JSON type, beyond the catalogue: text with any
    code point (surrogates and NULs included), integers and floats of any size, nesting."""
    scalars = st.one_of(
        st.text(st.characters(codec=None), max_size=80),
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
        st.booleans(),
        st.none(),
    )
    values = st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
        max_leaves=5,
    )
    return values.map(lambda v: Hostile("generated", v))


def hostile_values() -> st.SearchStrategy[Hostile]:
    return st.one_of(st.sampled_from(CATALOGUE), generated_values())


# ------------------------------------------------------------------------ bodies


def field_paths(schema: dict, document: OpenApiDocument, prefix: tuple = ()) -> list[tuple]:
    """Every field path of a request schema: object properties, and item 0 of arrays."""
    schema = _resolve(schema, document)
    paths = []
    for name, sub in schema.get("properties", {}).items():
        if sub.get("readOnly"):
            continue
        path = (*prefix, name)
        paths.append(path)
        sub = _resolve(sub, document)
        if sub.get("type") == "array":
            item = (*path, 0)
            paths.append(item)
            paths += field_paths(sub.get("items", {}), document, item)
        elif sub.get("type") == "object" or "properties" in sub:
            paths += field_paths(sub, document, path)
    return paths


def _resolve(schema: dict, document: OpenApiDocument) -> dict:
    if "$ref" in schema:
        return _resolve(document.component(schema["$ref"]), document)
    if len(schema.get("allOf", [])) == 1:
        return {**_resolve(schema["allOf"][0], document), **schema, "allOf": None}
    return schema


def has_path(body: Any, path: tuple) -> bool:
    for key in path:
        try:
            body = body[key]
        except (KeyError, IndexError, TypeError):
            return False
    return True


def splice(body: dict, path: tuple, hostile: Hostile) -> tuple[Any, bytes]:
    """(the body as a parser would read it, the bytes to send) with `hostile` at `path`;
    `path` () replaces the whole body."""
    if not path:
        text = hostile.raw if hostile.raw is not None else json.dumps(hostile.value)
        return hostile.value, text.encode()
    decoded = _with(body, path, hostile.value)
    if hostile.raw is None:
        return decoded, json.dumps(decoded).encode()  # ensure_ascii: "\ud800" stays escaped
    text = json.dumps(_with(body, path, _PLACEHOLDER))
    return decoded, text.replace(json.dumps(_PLACEHOLDER), hostile.raw).encode()


def _with(body: dict, path: tuple, value: Any) -> Any:
    out = copy.deepcopy(body)
    target = out
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return out


# ------------------------------------------------------------------------ oracle

_FORMATS = FormatChecker()


@_FORMATS.checks("date-time", raises=ValueError)
def _date_time(value: object) -> bool:
    """RFC 3339 as DRF's DateTimeField reads it (jsonschema checks date-time only with a
    package the project does not install)."""
    if not isinstance(value, str):
        return True
    datetime.fromisoformat(value.replace("Z", "+00:00"))
    return True


def schema_validator(schema: dict, document: OpenApiDocument) -> Draft202012Validator:
    components = {
        "schemas": {
            name: to_json_schema(s)
            for name, s in document.document["components"]["schemas"].items()
        }
    }
    return Draft202012Validator(
        {**to_json_schema(schema), "components": components}, format_checker=_FORMATS
    )


def must_refuse(validator: Draft202012Validator | None, decoded: Any, hostile: Hostile) -> bool:
    """Whether the API must refuse this body: not JSON, a NUL or lone surrogate in any
    string, a non-finite number, or anything its schema does not admit."""
    if hostile.not_json:
        return True
    if any(_bad_text(s) for s in _strings(decoded)):
        return True
    if any(isinstance(n, float) and not math.isfinite(n) for n in _leaves(decoded)):
        return True
    return validator is not None and not validator.is_valid(decoded)


def _bad_text(s: str) -> bool:
    return "\x00" in s or any(0xD800 <= ord(c) <= 0xDFFF for c in s)


def _leaves(value: Any):
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v)
    else:
        yield value


def _strings(value: Any):
    return (v for v in _leaves(value) if isinstance(v, str))
