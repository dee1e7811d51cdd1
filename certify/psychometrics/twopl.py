"""The 2PL response function and what follows from it: item and test information and
the test characteristic curve (the expected number right at an ability)."""

from __future__ import annotations

import numpy as np


def p_correct(theta, a, b) -> np.ndarray:
    """P(right | theta) for items (a, b): broadcasts, e.g. theta (K, 1) by items (I,)."""
    z = np.asarray(a) * (np.asarray(theta) - np.asarray(b))
    return 1.0 / (1.0 + np.exp(-np.clip(z, -35.0, 35.0)))


def item_information(theta, a, b) -> np.ndarray:
    """Fisher information of each item at theta: a^2 P (1 - P)."""
    p = p_correct(theta, a, b)
    return np.asarray(a) ** 2 * p * (1.0 - p)


def test_information(theta, a, b) -> np.ndarray:
    """The sum of the items' information at each theta (theta may be an array)."""
    theta = np.atleast_1d(np.asarray(theta, dtype=float))[:, None]
    return item_information(theta, a, b).sum(axis=1)


def expected_score(theta, a, b) -> np.ndarray:
    """The test characteristic curve: the expected number right at each theta."""
    theta = np.atleast_1d(np.asarray(theta, dtype=float))[:, None]
    return p_correct(theta, a, b).sum(axis=1)


def quadrature(points: int = 61) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and weights integrating against N(0, 1) (Gauss-Hermite, probabilists')."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(points)
    return nodes, weights / weights.sum()
