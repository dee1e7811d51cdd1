"""A JSON parser that answers 400, never 500, to any body it cannot or will not read.

DRF's JSONParser turns a ValueError into ParseError (400), but a deeply nested body
(`[[[[...]]]]` a few thousand levels down) makes the json module raise RecursionError,
which escapes as a 500. This parser refuses nesting deeper than MAX_DEPTH (arrays and
objects; no request of this API needs more than a handful of levels) and turns
RecursionError into ParseError as well.

It also refuses a string (value or key) holding a lone surrogate (`"\\ud800"`): JSON's
escapes can spell one, but it is no text. UTF-8 cannot encode it, so it broke whatever
echoed it (a ChoiceField's '"\\ud800" is not a valid choice.' was a 500 when the error
body was rendered) and would break whatever stored it (PostgreSQL refuses it). `NaN` and
`Infinity` are refused by DRF's own strict JSON (STRICT_JSON, on by default), and an
integer longer than Python reads (4,300 digits) is a ValueError, so a 400 too.
"""

from __future__ import annotations

import re

from rest_framework import parsers
from rest_framework.exceptions import ParseError

MAX_DEPTH = 32
_SURROGATE = re.compile("[\ud800-\udfff]")


def json_depth(value) -> int:
    """Nesting depth of a parsed JSON value: a scalar is 0, `[]` and `{}` are 1.
    Iterative, so a deep value cannot exhaust the stack here either."""
    return _walk(value)[0]


def has_lone_surrogate(value) -> bool:
    """Whether any string of a parsed JSON value, object keys included, holds a lone
    surrogate code point."""
    return _walk(value)[1]


def _walk(value) -> tuple[int, bool]:
    """(nesting depth, whether a string holds a lone surrogate), in one iterative pass."""
    deepest, surrogate = 0, False
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            surrogate = surrogate or _SURROGATE.search(item) is not None
        if isinstance(item, dict):
            children = item.values()
            surrogate = surrogate or any(_SURROGATE.search(k) for k in item)
        elif isinstance(item, list):
            children = item
        else:
            deepest = max(deepest, depth)
            continue
        depth += 1
        deepest = max(deepest, depth)
        stack.extend((child, depth) for child in children)
    return deepest, surrogate


class JSONParser(parsers.JSONParser):
    """DRF's JSONParser, refusing bodies nested deeper than `max_depth`, or holding a lone
    surrogate, with ParseError."""

    max_depth = MAX_DEPTH

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(
                f"JSON parse error - nested deeper than {self.max_depth} levels."
            ) from None
        depth, surrogate = _walk(data)
        if depth > self.max_depth:
            raise ParseError(f"JSON parse error - nested deeper than {self.max_depth} levels.")
        if surrogate:
            raise ParseError(
                "JSON parse error - a string holds a lone surrogate (an unpaired \\ud800 to "
                "\\udfff escape), which is not text."
            )
        return data
