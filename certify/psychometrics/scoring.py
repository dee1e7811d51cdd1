"""An ability estimate for one attempt: the expected a posteriori (EAP) ability with its
posterior standard deviation, under the calibration's N(0, 1) prior (Bock and Mislevy,
1982, Applied Psychological Measurement 6(4), 431-444). EAP exists for every pattern,
all right and all wrong included, where maximum likelihood runs off to infinity."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from certify.psychometrics.twopl import p_correct, quadrature


@dataclass(frozen=True)
class Ability:
    theta: float
    se: float  # the posterior standard deviation


def eap(
    answers: Sequence[int], a: Sequence[float], b: Sequence[float], *, points: int = 61
) -> Ability:
    """EAP ability for right (1) / wrong (0) answers to items with parameters (a, b)."""
    y = np.asarray(answers, dtype=float)
    nodes, weights = quadrature(points)
    p = p_correct(nodes[:, None], np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    log_like = (np.log(p) * y + np.log1p(-p) * (1 - y)).sum(axis=1) + np.log(weights)
    post = np.exp(log_like - log_like.max())
    post /= post.sum()
    theta = float(post @ nodes)
    return Ability(theta, float(np.sqrt(post @ (nodes - theta) ** 2)))


def mle(
    answers: Sequence[int],
    a: Sequence[float],
    b: Sequence[float],
    *,
    bounds: tuple[float, float] = (-6.0, 6.0),
) -> Ability:
    """Maximum-likelihood ability with its standard error 1 / sqrt(I(theta_hat)).

    Fisher scoring (Newton with the expected information, which for the 2PL equals the
    observed one: the second derivative of the log-likelihood does not involve y), kept
    inside `bounds`. A pattern all right or all wrong has no finite maximum: ValueError
    (use eap for it)."""
    y = np.asarray(answers, dtype=float)
    a_, b_ = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if y.size == 0 or y.min() == y.max():
        raise ValueError("all answers alike: the likelihood has no finite maximum")
    theta = 0.0
    for _ in range(100):
        p = p_correct(theta, a_, b_)
        info = float((a_**2 * p * (1 - p)).sum())
        step = float((a_ * (y - p)).sum()) / info
        theta = min(max(theta + max(min(step, 1.0), -1.0), bounds[0]), bounds[1])
        if abs(step) < 1e-10:
            break
    p = p_correct(theta, a_, b_)
    return Ability(theta, float(1.0 / np.sqrt((a_**2 * p * (1 - p)).sum())))
