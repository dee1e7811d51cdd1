"""Each template's public worked example: one fixed variant, shown for reading.

Lesson pages show the variant at EXAMPLE_SEED of their first template with its worked
solution (frontend.queries.learning). Anyone can read it, so it must never be a
question: some templates have only a handful of parameter sets, and a learner would
otherwise now and then meet, in an exam, the very variant whose answer the lesson page
prints. The question draw (assess.services.questions) asks `is_example` and draws again.
"""

from __future__ import annotations

from functools import lru_cache

from problems.engine.variants import Variant

EXAMPLE_SEED = 1


def _answers(variant: Variant) -> dict:
    """The measured (numeric) answers only: a choice or a whole number shared with the
    example says little (many variants answer "memory" or 8), and redrawing every such
    variant would skew a template's answers away from its example's."""
    return {n: p.value for n, p in variant.parts.items() if str(p.kind) == "numeric"}


@lru_cache(maxsize=512)
def example_params(slug: str) -> dict:
    """The example's parameters, as a question would store them."""
    return Variant.from_seed(slug, EXAMPLE_SEED).params.model_dump(mode="json")


@lru_cache(maxsize=512)
def example_answers(slug: str) -> dict:
    """The example's solved values, part by part: what its page prints."""
    return _answers(Variant.from_seed(slug, EXAMPLE_SEED))


def is_example(variant: Variant) -> bool:
    """The variant gives its template's public example away, whatever seed drew it: the
    same parameters, or other parameters with the very same answers (weights in INT4 and
    in FP4 take the same bytes, so the lesson page's answer would be this one's)."""
    slug = variant.template.slug
    return (
        variant.params.model_dump(mode="json") == example_params(slug)
        or bool(answers := _answers(variant))
        and answers == example_answers(slug)
    )
