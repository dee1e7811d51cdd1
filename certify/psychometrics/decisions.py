"""How far a pass/fail decision at a cut can be trusted.

- Marginal reliability of the ability estimates: var(theta_hat) / (var(theta_hat) +
  mean(se^2)), the share of the estimates' spread that is not error (Green, Bock,
  Humphreys, Linn and Reckase, 1984, Journal of Educational Measurement 21(4), 347-360).
- SEM at the cut: 1 / sqrt(I(cut)), the test's information at the cut.
- Rudner's expected classification accuracy (Rudner, 2001, "Computing the expected
  proportions of misclassified examinees", Practical Assessment, Research & Evaluation
  7(14); 2005, PARE 10(13)): with each learner's true ability taken as normal around the
  estimate with its standard error, the chance their true ability lies on the side of
  the cut they were classified on is Phi(|theta_hat - cut| / se); accuracy is its mean.
- Decision consistency (the same model, two independent forms): a learner is classified
  the same way twice with probability p^2 + (1 - p)^2, p = Phi((theta_hat - cut) / se);
  consistency is its mean.
- The same two figures before anyone sits the test, from the items alone (Rudner 2005,
  "Expected classification accuracy", PARE 10(13), its equations for a known ability
  distribution): over true abilities theta ~ N(0, 1) (the calibration's scale, on a
  fine even grid: the integrand has a kink at the cut), the estimate is taken as normal
  around theta with the standard error 1 / sqrt(I(theta)) of the test's information, so
      accuracy    = E_theta[ Phi(|theta - cut| / se(theta)) ]
      consistency = E_theta[ p^2 + (1 - p)^2 ],  p = Phi((theta - cut) / se(theta)).
  This is what a track's exam length is chosen by (issue 41, item 7).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from certify.psychometrics.twopl import test_information


def _phi(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))


def marginal_reliability(theta: Sequence[float], se: Sequence[float]) -> float:
    theta, se = np.asarray(theta, dtype=float), np.asarray(se, dtype=float)
    spread = float(theta.var())
    return spread / (spread + float((se**2).mean()))


def sem_at(cut: float, a: Sequence[float], b: Sequence[float]) -> float:
    return float(1.0 / math.sqrt(test_information(cut, a, b)[0]))


def classification_accuracy(theta: Sequence[float], se: Sequence[float], cut: float) -> float:
    z = np.abs(np.asarray(theta, dtype=float) - cut) / np.asarray(se, dtype=float)
    return float(_phi(z).mean())


def decision_consistency(theta: Sequence[float], se: Sequence[float], cut: float) -> float:
    p = _phi((np.asarray(theta, dtype=float) - cut) / np.asarray(se, dtype=float))
    return float((p**2 + (1 - p) ** 2).mean())


def _population_side(cut: float, a: Sequence[float], b: Sequence[float], points: int):
    """P(classified above the cut) over a fine even grid of theta with N(0, 1) weights:
    max(p, 1 - p) has a kink at the cut, which Gauss-Hermite nodes integrate poorly
    (0.003 off for a sharp form with 81 nodes); the grid's error is under 1e-5."""
    nodes = np.linspace(-8.0, 8.0, points)
    weights = np.exp(-0.5 * nodes**2)
    weights /= weights.sum()
    se = 1.0 / np.sqrt(test_information(nodes, a, b))
    return _phi((nodes - cut) / se), weights


def expected_accuracy(cut: float, a: Sequence[float], b: Sequence[float], *, points=1601) -> float:
    """Rudner's accuracy of a form (items a, b) at the cut over theta ~ N(0, 1)."""
    p, weights = _population_side(cut, a, b, points)
    return float(weights @ np.maximum(p, 1 - p))


def expected_consistency(
    cut: float, a: Sequence[float], b: Sequence[float], *, points=1601
) -> float:
    """Rudner's chance that two parallel forms (items a, b) classify a learner alike."""
    p, weights = _population_side(cut, a, b, points)
    return float(weights @ (p**2 + (1 - p) ** 2))


def required_length(
    cut: float, a: Sequence[float], b: Sequence[float], *, target: float = 0.9, most: int = 60
) -> int | None:
    """The fewest items, drawn in turn from a pool (a, b) (cycling through it), whose
    form reaches Rudner's expected accuracy `target` at the cut; None when `most` items
    do not. For a track: how long its exam must be, given its pool's calibration."""
    a, b = list(a), list(b)
    if not a:
        return None
    for n in range(1, most + 1):
        form_a = [a[i % len(a)] for i in range(n)]
        form_b = [b[i % len(b)] for i in range(n)]
        if expected_accuracy(cut, form_a, form_b) >= target:
            return n
    return None
