"""Do a template's variants differ in difficulty? (Issue 41: flagged templates leave the
certification pools until fixed.)

A template is one 2PL item, which assumes every variant of it is equally hard. To test
that, each answer's variant is described by its numeric parameters (standardised within
the template), and the item's difficulty is let to move with them:

    P(right) = 1 / (1 + exp(-(a theta - a (b + beta . x))))

with the calibrated a and the learner's ability estimate held fixed, b and beta fitted
by Newton's method (an explanatory item response model, De Boeck and Wilson, 2004,
"Explanatory Item Response Models", ch. 2, restricted to one item). The spread of the
difficulty shift beta . x over the variants answered (its standard deviation, in logits
of ability) says how much the variant, not the learner, decides the answer; a template
is flagged when it exceeds FLAG_SPREAD and the fit is sure of it (the spread more than
twice its standard error), from MIN_ANSWERS answers on. Parameters enter as logarithms
(sizes vary by factors), so a step between two kinds of variant is seen through its
linear trend: the spread then understates the step, never invents one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

FLAG_SPREAD = 0.5  # logits: half a standard deviation of ability between variants
MIN_ANSWERS = 50  # fewer cannot tell a variant's difficulty from its learners'
RIDGE = 1e-3


@dataclass(frozen=True)
class VariantSpread:
    spread: float  # SD over the answers of the variant's difficulty shift, in logits
    se: float
    n: int
    flagged: bool


def _standardise(x: np.ndarray) -> np.ndarray:
    sd = x.std(axis=0)
    keep = sd > 1e-12
    return (x[:, keep] - x[:, keep].mean(axis=0)) / sd[keep]


def variant_spread(
    theta: Sequence[float],
    features: Sequence[Sequence[float]],
    correct: Sequence[int],
    *,
    a: float,
    threshold: float = FLAG_SPREAD,
) -> VariantSpread:
    """Fit the explanatory model for one template; features: one row per answer."""
    y = np.asarray(correct, dtype=float)
    th = np.asarray(theta, dtype=float)
    x = _standardise(np.log1p(np.abs(np.asarray(features, dtype=float))))
    n = len(y)
    if x.shape[1] == 0 or n < MIN_ANSWERS:
        return VariantSpread(0.0, 0.0, n, False)
    design = np.column_stack([np.ones(n), x])  # difficulty: b + beta . x
    coef = np.zeros(design.shape[1])
    for _ in range(50):
        z = np.clip(a * th - a * design @ coef, -35, 35)
        p = 1 / (1 + np.exp(-z))
        grad = -a * design.T @ (y - p) - RIDGE * coef
        hess = a**2 * (design.T * (p * (1 - p))) @ design + RIDGE * np.eye(len(coef))
        step = np.linalg.solve(hess, grad)
        coef += np.clip(step, -2, 2)
        if np.abs(step).max() < 1e-8:
            break
    cov = np.linalg.inv(hess)
    beta, cov_beta = coef[1:], cov[1:, 1:]
    shift = x @ beta
    spread = float(shift.std())
    # The spread's standard error by the delta method: d spread / d beta.
    centred = shift - shift.mean()
    grad_spread = (x - x.mean(axis=0)).T @ centred / (n * spread) if spread > 0 else beta * 0
    se = float(np.sqrt(max(grad_spread @ cov_beta @ grad_spread, 0.0)))
    return VariantSpread(spread, se, n, spread > threshold and spread > 2 * se)


MAX_LEVELS = 12  # a text parameter with more distinct values is not a variant's kind


def variant_features(params: Sequence[dict]) -> list[list[float]]:
    """One row of features per answered variant, from its parameters: each number as
    itself (variant_spread takes its logarithm), each text parameter with at most
    MAX_LEVELS values (a GPU, a model, a workload) as indicators of its values but the
    first, so a template whose hard variants are one accelerator's is seen too. Nested
    values and booleans are left out; a missing number counts as 0."""
    numbers: set[str] = set()
    levels: dict[str, set[str]] = {}
    for p in params:
        for key, value in p.items():
            if isinstance(value, bool):
                continue
            if isinstance(value, int | float):
                numbers.add(key)
            elif isinstance(value, str):
                levels.setdefault(key, set()).add(value)
    kinds = {k: sorted(v)[1:] for k, v in levels.items() if 1 < len(v) <= MAX_LEVELS}
    columns = sorted(numbers - set(kinds))
    rows = []
    for p in params:
        row = [float(p.get(k, 0) or 0) if not isinstance(p.get(k), str) else 0.0 for k in columns]
        for key in sorted(kinds):
            row.extend(1.0 if p.get(key) == level else 0.0 for level in kinds[key])
        rows.append(row)
    return rows
