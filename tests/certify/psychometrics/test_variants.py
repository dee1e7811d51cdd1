"""A template whose variants differ in difficulty is flagged; one whose variants differ
only in their numbers is not, and a handful of answers never flags."""

from __future__ import annotations

import numpy as np
import pytest

from certify.psychometrics.variants import variant_spread

pytestmark = pytest.mark.db_independent


def _answers(rng, n, difficulty_of, a=1.5):
    theta = rng.normal(0, 1, n)
    size = rng.choice([8.0, 70.0, 405.0], n)  # e.g. a model's billions of parameters
    other = rng.uniform(1, 4, n)  # a second parameter that does not matter
    b = np.array([difficulty_of(s) for s in size])
    y = (rng.random(n) < 1 / (1 + np.exp(-a * (theta - b)))).astype(int)
    return theta, np.column_stack([size, other]), y


def test_variants_of_two_difficulties_are_flagged():
    rng = np.random.default_rng(1)
    theta, x, y = _answers(rng, 3000, lambda s: 1.5 if s > 100 else 0.0)
    result = variant_spread(theta, x, y, a=1.5)
    # Two levels 1.5 apart, a third of the answers on the hard one: SD 1.5 * sqrt(2)/3 =
    # 0.71; the linear trend in log size sees most of it.
    assert result.flagged and 0.45 < result.spread <= 0.75 and result.se < 0.1


def test_variants_of_one_difficulty_are_not_flagged():
    rng = np.random.default_rng(2)
    theta, x, y = _answers(rng, 3000, lambda s: 0.3)
    result = variant_spread(theta, x, y, a=1.5)
    assert not result.flagged and result.spread < 0.2


def test_a_few_answers_never_flag():
    rng = np.random.default_rng(3)
    theta, x, y = _answers(rng, 25, lambda s: 2.0 if s > 100 else -1.0)
    assert not variant_spread(theta, x, y, a=1.5).flagged  # 25: under the minimum
