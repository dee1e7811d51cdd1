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


@lru_cache(maxsize=512)
def example_params(slug: str) -> dict:
    """The example's parameters, as a question would store them."""
    return Variant.from_seed(slug, EXAMPLE_SEED).params.model_dump(mode="json")


def is_example(variant: Variant) -> bool:
    """The variant is its template's public example (same parameters, so the same
    statement and answers), whatever seed drew it."""
    return variant.params.model_dump(mode="json") == example_params(variant.template.slug)
