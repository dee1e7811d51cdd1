"""A JSON parser that answers 400, never 500, to any body it cannot or will not read.

DRF's JSONParser turns a ValueError into ParseError (400), but a deeply nested body
(`[[[[...]]]]` a few thousand levels down) makes the json module raise RecursionError,
which escapes as a 500. This parser refuses nesting deeper than MAX_DEPTH (arrays and
objects; no request of this API needs more than a handful of levels) and turns
RecursionError into ParseError as well.
"""

from __future__ import annotations

from rest_framework import parsers
from rest_framework.exceptions import ParseError

MAX_DEPTH = 32


def json_depth(value) -> int:
    """Nesting depth of a parsed JSON value: a scalar is 0, `[]` and `{}` are 1.
    Iterative, so a deep value cannot exhaust the stack here either."""
    deepest = 0
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            deepest = max(deepest, depth)
            continue
        depth += 1
        deepest = max(deepest, depth)
        stack.extend((child, depth) for child in children)
    return deepest


class JSONParser(parsers.JSONParser):
    """DRF's JSONParser, refusing bodies nested deeper than `max_depth` with ParseError."""

    max_depth = MAX_DEPTH

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(
                f"JSON parse error - nested deeper than {self.max_depth} levels."
            ) from None
        if json_depth(data) > self.max_depth:
            raise ParseError(f"JSON parse error - nested deeper than {self.max_depth} levels.")
        return data
