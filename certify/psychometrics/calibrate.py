"""2PL calibration by marginal maximum likelihood (Bock and Aitkin, 1981, Psychometrika
46(4), 443-459): abilities are integrated out over N(0, 1) on a quadrature, and EM
alternates between the expected number of learners (and of right answers) at each node
for each item (E) and each item's parameters given those counts (M).

Sparse data is the normal case (a learner meets a few templates): a mask says which
answers exist, and a missing answer adds nothing to anyone's likelihood.

The M-step fits each item in slope-intercept form, P = 1 / (1 + exp(-(a theta + c))),
b = -c / a, by Newton steps on the expected complete-data log-likelihood plus two mild
priors that keep an item seen by few learners finite without moving a well-measured one:
log a ~ N(0, 1) and c ~ N(0, 3^2). Converged when no parameter moves by more than 1e-4
and the marginal log-likelihood by less than 1e-6 of itself between cycles (at most 500).

Standard errors come from the cross-product of each learner's score (the gradient of
their marginal log-likelihood with respect to the item's a and c) plus the priors'
curvature, per item (the information between items is left out), and reach b by the
delta method.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from certify.psychometrics.twopl import quadrature

LOG_A_SD = 1.0
C_SD = 3.0
TOL_PARAMS = 1e-4
TOL_LOGLIK = 1e-6
MAX_CYCLES = 500


class CalibrationError(ValueError):
    """Data a calibration cannot use; the message names the item."""


@dataclass(frozen=True)
class ItemFit:
    item: str
    discrimination: float
    difficulty: float
    se_discrimination: float
    se_difficulty: float
    n: int


@dataclass(frozen=True)
class Fit:
    items: tuple[ItemFit, ...]
    log_likelihood: float
    cycles: int
    converged: bool
    persons: int
    responses: int

    def as_json(self) -> dict:
        return {
            "items": {
                f.item: {
                    "discrimination": round(f.discrimination, 4),
                    "difficulty": round(f.difficulty, 4),
                    "se_difficulty": round(f.se_difficulty, 4),
                    "n": f.n,
                }
                for f in self.items
            },
            "log_likelihood": round(self.log_likelihood, 4),
        }


def _matrix(rows: Sequence[tuple[str, str, int]]):
    persons = sorted({r[0] for r in rows})
    items = sorted({r[1] for r in rows})
    pi = {p: i for i, p in enumerate(persons)}
    ii = {t: i for i, t in enumerate(items)}
    y = np.zeros((len(persons), len(items)))
    mask = np.zeros_like(y)
    for person, item, correct in rows:
        y[pi[person], ii[item]] = correct
        mask[pi[person], ii[item]] = 1.0
    return persons, items, y * mask, mask


def _check(items: list[str], y: np.ndarray, mask: np.ndarray) -> None:
    right, seen = y.sum(axis=0), mask.sum(axis=0)
    for i, item in enumerate(items):
        if right[i] == 0 or right[i] == seen[i]:
            alike = "wrong" if right[i] == 0 else "right"
            raise CalibrationError(
                f"item {item}: all {int(seen[i])} answers are {alike}; "
                "its difficulty cannot be estimated"
            )


def _logits(a, c, nodes):
    """a theta + c at every node for every item, bounded: (nodes, items)."""
    return np.clip(np.outer(nodes, a) + c, -35.0, 35.0)


def _loglik_nodes(y, mask, a, c, nodes):
    """log P(answers | theta_k) per person and node: (persons, nodes)."""
    z = _logits(a, c, nodes)
    log_p = -np.log1p(np.exp(-z))
    log_q = -np.log1p(np.exp(z))
    return y @ log_p.T + (mask - y) @ log_q.T


def _posterior(y, mask, a, c, nodes, weights):
    ll = _loglik_nodes(y, mask, a, c, nodes) + np.log(weights)
    top = ll.max(axis=1, keepdims=True)
    joint = np.exp(ll - top)
    marginal = joint.sum(axis=1, keepdims=True)
    return joint / marginal, float((np.log(marginal) + top).sum())


def _m_step(a, c, n_k, r_k, nodes, steps: int = 3):
    """Newton steps per item on sum_k r log P + (n - r) log(1 - P) + log priors."""
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-_logits(a, c, nodes).T))  # (I, K)
        resid = r_k - n_k * p
        w = n_k * p * (1.0 - p)
        log_a = np.log(a)
        g_a = (resid * nodes).sum(axis=1) - log_a / (LOG_A_SD**2 * a) - 1.0 / a
        g_c = resid.sum(axis=1) - c / C_SD**2
        h_aa = -(w * nodes**2).sum(axis=1) - (1 - log_a - LOG_A_SD**2) / (LOG_A_SD**2 * a**2)
        h_aa = np.minimum(h_aa, -1e-6)
        h_cc = -w.sum(axis=1) - 1.0 / C_SD**2
        h_ac = -(w * nodes).sum(axis=1)
        det = h_aa * h_cc - h_ac**2
        det = np.where(det > 1e-12, det, 1e-12)
        da = -(h_cc * g_a - h_ac * g_c) / det
        dc = -(-h_ac * g_a + h_aa * g_c) / det
        da = np.clip(da, -0.5 * a, 1.0)  # a stays positive, moves by bounded steps
        dc = np.clip(dc, -2.0, 2.0)
        a, c = a + da, c + dc
    return a, c


def _standard_errors(y, mask, a, c, post, nodes):
    p = 1.0 / (1.0 + np.exp(-_logits(a, c, nodes)))  # (K, I)
    # A learner's score for an item: E_post[(y - P(theta)) * (theta, 1)], where answered.
    s_c = mask * (y - post @ p)  # sum_k post_k (y - P_k)
    s_a = mask * (y * (post @ nodes)[:, None] - post @ (p * nodes[:, None]))
    log_a = np.log(a)
    i_aa = (s_a**2).sum(axis=0) + (1 - log_a - LOG_A_SD**2) / (LOG_A_SD**2 * a**2)
    i_aa = np.maximum(i_aa, 1e-12)
    i_cc = (s_c**2).sum(axis=0) + 1.0 / C_SD**2
    i_ac = (s_a * s_c).sum(axis=0)
    det = np.maximum(i_aa * i_cc - i_ac**2, 1e-12)
    var_a, var_c, cov = i_cc / det, i_aa / det, -i_ac / det
    # b = -c / a: gradient (c / a^2, -1 / a)
    g_a, g_c = c / a**2, -1.0 / a
    var_b = g_a**2 * var_a + g_c**2 * var_c + 2 * g_a * g_c * cov
    return np.sqrt(var_a), np.sqrt(np.maximum(var_b, 0.0))


def uniform_items(rows: Sequence[tuple[str, str, int]]) -> set[str]:
    """Items every learner answered alike (all right or all wrong): no 2PL fits them."""
    right: dict[str, set[int]] = {}
    for _, item, correct in rows:
        right.setdefault(item, set()).add(int(correct))
    return {item for item, seen in right.items() if len(seen) == 1}


def calibrate(rows: Sequence[tuple[str, str, int]], *, points: int = 61) -> Fit:
    """Fit the 2PL to (person, item, 0/1) rows; raises CalibrationError on unusable data
    (no rows, or an item every learner answered alike)."""
    if not rows:
        raise CalibrationError("no responses")
    persons, items, y, mask = _matrix(rows)
    _check(items, y, mask)
    nodes, weights = quadrature(points)
    a = np.ones(len(items))
    share = (y.sum(axis=0) + 0.5) / (mask.sum(axis=0) + 1.0)
    c = np.log(share / (1 - share)) * 1.7  # a start near the logit of the share right
    previous, converged, cycles = -np.inf, False, 0
    while cycles < MAX_CYCLES:
        cycles += 1
        post, loglik = _posterior(y, mask, a, c, nodes, weights)
        n_k, r_k = mask.T @ post, y.T @ post  # (I, K)
        a_new, c_new = _m_step(a, c, n_k, r_k, nodes)
        moved = max(np.abs(a_new - a).max(), np.abs(c_new - c).max())
        a, c = a_new, c_new
        if moved < TOL_PARAMS and abs(loglik - previous) <= TOL_LOGLIK * abs(loglik):
            converged = True
            break
        previous = loglik
    post, loglik = _posterior(y, mask, a, c, nodes, weights)
    se_a, se_b = _standard_errors(y, mask, a, c, post, nodes)
    counts = mask.sum(axis=0)
    fits = tuple(
        ItemFit(item, float(a[i]), float(-c[i] / a[i]), float(se_a[i]), float(se_b[i]),
                int(counts[i]))
        for i, item in enumerate(items)
    )  # fmt: skip
    return Fit(fits, loglik, cycles, converged, len(persons), int(mask.sum()))
