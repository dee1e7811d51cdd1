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
