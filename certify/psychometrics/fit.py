"""How well the 2PL model fits one template: the infit and outfit mean squares of its
answers' residuals (Wright and Masters, 1982, "Rating Scale Analysis", ch. 5), with each
learner's chance on each answer predicted from their other answers under the calibration
(`predicted`).

For an answer y (0 or 1) with model probability P, the squared standardised residual is
z^2 = (y - P)^2 / (P (1 - P)). Outfit is the mean of z^2 over the template's answers
(sensitive to surprises far from the item's difficulty: a strong learner failing an easy
item); infit weights each by its variance P (1 - P), i.e. sum (y - P)^2 / sum P (1 - P)
(sensitive to misfit near the item's difficulty). Both expect 1; values above about 1.3
say the template's answers are noisier than the model allows (a misleading statement, a
grading slip), values far below 1 that they are too predictable. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from certify.psychometrics.twopl import p_correct, quadrature

MISFIT = 1.3  # a mean square above this is shown as misfit in the report


@dataclass(frozen=True)
class ItemFitStats:
    infit: float
    outfit: float

    @property
    def misfits(self) -> bool:
        return self.infit > MISFIT or self.outfit > MISFIT


def item_fit(theta: Sequence[float], correct: Sequence[int], a: float, b: float) -> ItemFitStats:
    """Mean squares with known abilities (simulations, tests)."""
    return mean_squares(p_correct(np.asarray(theta, dtype=float), a, b), correct)


def predicted(answers: Sequence[tuple[int, float, float]], *, points: int = 61) -> list[float]:
    """One learner's chance of each of their answers being right, predicted from their
    other answers: the posterior mean of P under N(0, 1) given every answer but that one
    (answers: (right, a, b) per template). Leaving the answer out matters: a learner met
    on three templates has an ability estimate made mostly of the answer being judged,
    which would make every template look too predictable (mean squares near 0.7)."""
    nodes, weights = quadrature(points)
    y = np.array([r for r, _, _ in answers], dtype=float)
    p = np.clip(
        p_correct(nodes[:, None], [a for _, a, _ in answers], [b for _, _, b in answers]),
        1e-12,
        1 - 1e-12,
    )
    each = y * np.log(p) + (1 - y) * np.log1p(-p)  # nodes x answers
    rest = each.sum(axis=1, keepdims=True) - each
    post = np.exp(rest - rest.max(axis=0)) * weights[:, None]
    post /= post.sum(axis=0)
    return [float(v) for v in (post * p).sum(axis=0)]


def mean_squares(p: Sequence[float], correct: Sequence[int]) -> ItemFitStats:
    """Infit and outfit of answers `correct` whose model chances are `p`."""
    y = np.asarray(correct, dtype=float)
    p = np.clip(np.asarray(p, dtype=float), 1e-9, 1 - 1e-9)
    variance = p * (1 - p)
    squared = (y - p) ** 2
    return ItemFitStats(
        infit=float(squared.sum() / variance.sum()), outfit=float((squared / variance).mean())
    )
