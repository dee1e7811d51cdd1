"""MLE scoring against a brute-force maximum, and Rudner's accuracy and consistency of a
form from its items alone (theta ~ N(0, 1)) against a Monte-Carlo simulation of the same
model written out independently here."""

from __future__ import annotations

import math

import numpy as np
import pytest

from certify.psychometrics import decisions
from certify.psychometrics.scoring import mle

pytestmark = pytest.mark.db_independent


def test_mle_matches_a_brute_force_maximum_and_its_information():
    a, b, y = [1.2, 0.8, 2.0, 1.5, 0.6], [-0.5, 0.3, 1.0, 0.0, -1.2], [1, 0, 0, 1, 1]
    grid = np.linspace(-6, 6, 120001)
    log_like = np.zeros_like(grid)
    for ai, bi, yi in zip(a, b, y, strict=True):
        p = 1 / (1 + np.exp(-ai * (grid - bi)))
        log_like += np.log(p if yi else 1 - p)
    best = grid[log_like.argmax()]
    info = sum(
        ai**2 / (1 + math.exp(-ai * (best - bi))) * (1 - 1 / (1 + math.exp(-ai * (best - bi))))
        for ai, bi in zip(a, b, strict=True)
    )
    got = mle(y, a, b)
    assert got.theta == pytest.approx(best, abs=2e-4)
    assert got.se == pytest.approx(1 / math.sqrt(info), abs=1e-3)


@pytest.mark.parametrize("answers", [[1, 1, 1], [0, 0, 0]])
def test_mle_refuses_a_pattern_all_alike(answers):
    with pytest.raises(ValueError, match="alike"):
        mle(answers, [1.0, 1.2, 0.9], [0.0, 0.5, -0.5])


def _monte_carlo(cut, a, b, n=400_000, seed=11):
    rng = np.random.default_rng(seed)
    theta = rng.standard_normal(n)
    p = 1 / (1 + np.exp(-np.asarray(a) * (theta[:, None] - np.asarray(b))))
    se = 1 / np.sqrt((np.asarray(a) ** 2 * p * (1 - p)).sum(axis=1))
    first = theta + se * rng.standard_normal(n)
    second = theta + se * rng.standard_normal(n)
    accuracy = ((first >= cut) == (theta >= cut)).mean()
    consistency = ((first >= cut) == (second >= cut)).mean()
    return accuracy, consistency


@pytest.mark.parametrize(
    ("a", "b"),
    [([1.2] * 6, [0.5] * 6), ([0.7, 1.0, 1.4, 2.0] * 5, list(np.linspace(-1.5, 1.5, 20)))],
)
def test_rudner_from_the_items_matches_a_simulation(a, b):
    # Monte-Carlo standard error is at most sqrt(0.25 / 400000) = 0.0008; allow 0.004.
    accuracy, consistency = _monte_carlo(0.5, a, b)
    assert decisions.expected_accuracy(0.5, a, b) == pytest.approx(accuracy, abs=0.004)
    assert decisions.expected_consistency(0.5, a, b) == pytest.approx(consistency, abs=0.004)


def test_accuracy_rises_with_length_and_20_typical_items_reach_about_09():
    # Issue 41, item 7: about 20 items of typical discrimination (here a = 1.2 at the
    # cut) reach 0.9 at theta = 0.5; fewer items fall short.
    at = [decisions.expected_accuracy(0.5, [1.2] * n, [0.5] * n) for n in (6, 10, 20, 30)]
    assert at == sorted(at) and at[0] < 0.85 and 0.88 <= at[2] <= 0.91 and at[3] > 0.91
    consistency = decisions.expected_consistency(0.5, [1.2] * 20, [0.5] * 20)
    assert consistency < at[2]  # two fallible forms agree less often than one meets the truth
