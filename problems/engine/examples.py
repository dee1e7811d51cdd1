"""Each template's public worked example: one fixed variant, shown for reading.

Lesson pages show the variant at EXAMPLE_SEED of their first template with its worked
solution (frontend.queries.learning). Anyone can read it, so it must never be a
question: some templates have only a handful of parameter sets, and a learner would
otherwise now and then meet, in an exam, the very variant whose answer the lesson page
prints. Nor may a question's answer be any other number an example prints: the
weights-memory example (Llama 3.1 405B in INT4, in GB) says the same bytes are 188.99
GiB, which is the answer of the variants asking for 405B in INT4 or FP4 in GiB (a CI
run's deferred-feedback walk found it on the lesson page during an exam). The question
draw (assess.services.questions) asks `is_example` and draws again.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from decimal import Decimal
from functools import lru_cache

from problems.engine import registry
from problems.engine.variants import Variant

EXAMPLE_SEED = 1


@lru_cache(maxsize=512)
def example(slug: str) -> Variant:
    """The template's example variant, built once: its parameters, answers and printed
    text are read from it."""
    return Variant.from_seed(slug, EXAMPLE_SEED)


def _measured(variant: Variant) -> list:
    """The numeric parts only: a choice or a whole number shared with the example says
    little (many variants answer "memory" or 8), and redrawing every such variant would
    skew a template's answers away from its example's."""
    return [p for p in variant.parts.values() if str(p.kind) == "numeric"]


def _answers(variant: Variant) -> dict:
    """The measured answers, part by part."""
    return {p.name: p.value for p in _measured(variant)}


@lru_cache(maxsize=512)
def example_params(slug: str) -> dict:
    """The example's parameters, as a question would store them."""
    return example(slug).params.model_dump(mode="json")


@lru_cache(maxsize=512)
def example_answers(slug: str) -> dict:
    """The example's solved values, part by part: what its page prints."""
    return _answers(example(slug))


# A number as Markdown prints it (thousands separators gone) and the unit after it, in
# plain text or LaTeX: `188.99 GiB`, `89645.4\\ \\mathrm{MiB}`.
_QUANTITY = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?!\w)(?:\s|\\[ ,;]|~|\\mathrm\{)*([A-Za-z%/]*)")
_SEPARATOR = re.compile(r"(?<=\d)(?:\{,\}|,)(?=\d{3}(?!\d))")
# Fewer significant figures say little: 8 GPUs, 80 GB, 0.5 bytes are everywhere.
_FIGURES = 4


def quantities(text: str) -> list[tuple[str, float, float]]:
    """The quantities of four or more significant figures that `text` (Markdown with
    LaTeX) prints with a unit: (unit, low, high), the values that print as the number."""
    found = []
    for match in _QUANTITY.finditer(_SEPARATOR.sub("", text)):
        number, unit = Decimal(match.group(1)), match.group(2)
        if unit and len(number.normalize().as_tuple().digits) >= _FIGURES:
            half = Decimal(5).scaleb(number.as_tuple().exponent - 1)
            found.append((unit, float(number - half), float(number + half)))
    return found


@lru_cache(maxsize=1)
def _printed() -> dict[str, tuple[list[float], list[float]]]:
    """What the public examples print (statement and worked solution, every template's:
    any may be a lesson's first), by unit: (low ends, high ends), sorted by low end."""
    spans: dict[str, list[tuple[float, float]]] = {}
    for slug in registry.slugs():
        variant = example(slug)
        text = variant.statement_markdown() + "\n" + variant.solution_markdown()
        for unit, low, high in quantities(text):
            spans.setdefault(unit, []).append((low, high))
    return {
        unit: ([low for low, _ in found], [high for _, high in found])
        for unit, found in ((u, sorted(f)) for u, f in spans.items())
    }


def prints_an_answer(variant: Variant) -> bool:
    """Some example prints one of the variant's measured answers in its unit: a number
    of four or more figures that the answer rounds to, followed by the part's unit."""
    printed = _printed()
    for part in _measured(variant):
        if part.unit not in printed:
            continue
        lows, highs = printed[part.unit]
        v = float(part.value)
        # an interval holding v starts at most half a unit in its 4th figure below it
        for i in range(bisect_left(lows, v - 1e-3 * abs(v)), bisect_right(lows, v)):
            if highs[i] >= v:
                return True
    return False


def is_example(variant: Variant) -> bool:
    """The variant gives a public example away, whatever seed drew it: its template's,
    with the same parameters or other parameters with the very same answers (weights in
    INT4 and in FP4 take the same bytes, so the lesson page's answer would be this
    one's), or any template's that prints one of its answers (prints_an_answer)."""
    slug = variant.template.slug
    return (
        variant.params.model_dump(mode="json") == example_params(slug)
        or bool(answers := _answers(variant))
        and answers == example_answers(slug)
        or prints_an_answer(variant)
    )
