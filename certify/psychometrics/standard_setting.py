"""A cut on the ability scale from modified Angoff ratings, and the pass rule an exam
attempt is decided by.

Modified Angoff (Angoff, 1971, in R. L. Thorndike (ed.), Educational Measurement, 2nd
ed., 514-515; "modified" for probabilities instead of yes/no, as Cizek and Bunch, 2007,
Standard Setting, ch. 6 describe): each rater states, per item, the probability that a
*minimally competent* candidate (one who just deserves the certificate) answers it
right. The mean rating per item, summed over the rated items, is the expected number
right of that borderline candidate. Under the 2PL model the test characteristic curve
TCC(theta) = sum_i P_i(theta) is strictly increasing, so exactly one ability has that
expected score: the cut theta_c with TCC(theta_c) = sum_i mean(r_i). Mapping the
ratings through the TCC, rather than using the raw-score sum as the pass mark, puts the
cut on the ability scale, where every form of the exam (whatever templates it drew) is
scored alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from certify.psychometrics.scoring import eap
from certify.psychometrics.twopl import expected_score

LOW, HIGH = -4.0, 4.0  # the ability range a cut may fall in
MAX_RATERS = 100


class StandardSettingError(ValueError):
    """Ratings that cannot set a cut: one line naming the item or the rating."""


@dataclass(frozen=True)
class Cut:
    theta: float
    borderline_score: float  # the borderline candidate's expected number right
    items: int
    raters: int


def angoff_cut(
    ratings: Mapping[str, Sequence[float]], params: Mapping[str, tuple[float, float]]
) -> Cut:
    """The ability whose expected score on the rated items equals the sum of their mean
    ratings. `ratings`: {item: [each rater's probability]}; `params`: {item: (a, b)}."""
    if not ratings:
        raise StandardSettingError("no ratings")
    items = sorted(ratings)
    for item in items:
        rs = ratings[item]
        if item not in params:
            raise StandardSettingError(f"{item}: no calibrated parameters")
        if not 1 <= len(rs) <= MAX_RATERS:
            raise StandardSettingError(f"{item}: 1 to {MAX_RATERS} ratings, got {len(rs)}")
        bad = [r for r in rs if not 0.0 < float(r) < 1.0]
        if bad:
            raise StandardSettingError(f"{item}: rating {bad[0]!r} is not strictly between 0 and 1")
    a = np.array([params[i][0] for i in items], dtype=float)
    b = np.array([params[i][1] for i in items], dtype=float)
    if (a <= 0).any():
        raise StandardSettingError("an item's discrimination is not positive")
    target = float(sum(np.mean([float(r) for r in ratings[i]]) for i in items))
    lo_score, hi_score = (float(expected_score(t, a, b)[0]) for t in (LOW, HIGH))
    if not lo_score < target < hi_score:
        raise StandardSettingError(
            f"the borderline expected score {target:.3f} falls outside the abilities "
            f"{LOW:g} to {HIGH:g} (expected scores {lo_score:.3f} to {hi_score:.3f})"
        )
    lo, hi = LOW, HIGH
    for _ in range(100):  # bisection: the TCC is increasing; 100 halvings is exact enough
        mid = (lo + hi) / 2
        if float(expected_score(mid, a, b)[0]) < target:
            lo = mid
        else:
            hi = mid
    raters = max(len(ratings[i]) for i in items)
    return Cut(
        theta=round((lo + hi) / 2, 6), borderline_score=target, items=len(items), raters=raters
    )


@dataclass(frozen=True)
class ExamRule:
    """How an exam attempt was decided: on ability (`theta` >= `cut`) when the exam has
    a standard setting and every item on the form was calibrated on enough responses,
    else on the raw score (`score` >= `pass_mark`), saying why."""

    rule: str  # "ability" or "raw-score"
    passed: bool
    reason: str
    theta: float | None = None
    se: float | None = None
    cut: float | None = None


DRILL_PASS = 0.6  # an incident drill on the form must score at least 6 of 10


def decide(
    *,
    score: float,
    pass_mark: float,
    items: Sequence[tuple[str, int]],
    drill_scores: Sequence[float],
    cut: float | None,
    params: Mapping[str, tuple[float, float, int]],
    min_responses: int,
) -> ExamRule:
    """Decide one attempt. `items`: (template, 1 or 0) per scored question, its counted
    answer to its first part (unanswered is 0), as calibration defines a response;
    `drill_scores`: each incident drill's score (0..1), a requirement of its own that no
    rule replaces; `params`: {template: (a, b, n)} of the standard setting's calibration.

    The ability rule applies only with a cut and every item calibrated on at least
    `min_responses` answers; otherwise the raw-score rule does, and the reason says why.
    """
    drills_ok = all(s >= DRILL_PASS - 1e-9 for s in drill_scores)
    drill_note = "" if drills_ok else f" An incident drill scored under {DRILL_PASS * 10:g} of 10."
    missing = sorted({t for t, _ in items if t not in params or params[t][2] < min_responses})
    if cut is None or not items or missing:
        if cut is None:
            why = "No standard setting for this track yet"
        elif not items:
            why = "No scored question on this form"
        else:
            shown = ", ".join(missing[:3]) + (" and more" if len(missing) > 3 else "")
            why = (
                f"Not every template on this form is calibrated on {min_responses} "
                f"answers ({shown})"
            )
        passed = score >= pass_mark
        return ExamRule(
            "raw-score",
            passed and drills_ok,
            f"{why}: decided on the raw score, {score:.0%} against the pass mark "
            f"{pass_mark:.0%}.{drill_note}",
        )

    a = [params[t][0] for t, _ in items]
    b = [params[t][1] for t, _ in items]
    ability = eap([y for _, y in items], a, b)
    passed = ability.theta >= cut
    word = "at or above" if passed else "below"
    return ExamRule(
        "ability",
        passed and drills_ok,
        f"Ability {ability.theta:.2f} (SE {ability.se:.2f}) {word} the cut {cut:.2f}.{drill_note}",
        theta=round(ability.theta, 4),
        se=round(ability.se, 4),
        cut=cut,
    )
