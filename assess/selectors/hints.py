"""A question's hints, cut by the engine from its stored variant's worked solution."""

from __future__ import annotations

import json
from functools import lru_cache

from problems.engine.hints import Hint, hints_for
from problems.engine.variants import ParamError, Variant


@lru_cache(maxsize=2048)
def _hints(slug: str, params: str, version: int | None = None) -> tuple[Hint, ...]:
    try:
        return tuple(hints_for(Variant.from_params(slug, json.loads(params), version)))
    except (ParamError, KeyError):
        return ()  # a template gone since: no hints rather than an error


def question_hints(question) -> tuple[Hint, ...]:
    """Every hint of the question in order (a pure function of its slug and parameters,
    cached: a class's homework draws the same variants)."""
    params = json.dumps(question.params, sort_keys=True)
    return _hints(question.template_slug, params, question.template_version)


def question_hint_total(question) -> int:
    """How many hints the question has: the count stored when it was drawn, else (a
    question stored before the count was kept) counted from its hints."""
    if question.hint_total is not None:
        return question.hint_total
    return len(question_hints(question))
