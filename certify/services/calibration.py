"""Calibrate every template from the database and keep the result.

The responses are certify.calibration_responses'; the fit is certify.psychometrics'.
A template every learner answered alike so far cannot be fitted and is left out of this
calibration (named in the result), as is any template under MIN_RESPONSES answers:
a handful of answers would give parameters whose errors swamp them. Each run is a new
Calibration row; earlier ones stay for the report's history.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from certify.calibration_responses import calibration_responses
from certify.models import Calibration, ItemParameters
from certify.psychometrics.calibrate import calibrate, uniform_items

MIN_RESPONSES = 30


@dataclass(frozen=True)
class CalibrationResult:
    calibration: Calibration | None  # None: nothing to calibrate yet
    left_out: dict[str, str]  # template -> why


def calibration_run(*, min_responses: int = MIN_RESPONSES) -> CalibrationResult:
    rows = [(str(learner), template, c) for learner, template, c in calibration_responses()]
    counts: dict[str, int] = {}
    for _, template, _ in rows:
        counts[template] = counts.get(template, 0) + 1
    left_out = {
        t: f"{n} responses (fewer than {min_responses})"
        for t, n in counts.items()
        if n < min_responses
    }
    for template in uniform_items(rows) - set(left_out):
        left_out[template] = "every learner answered it alike"
    kept = [r for r in rows if r[1] not in left_out]
    if not kept:
        return CalibrationResult(None, left_out)
    fit = calibrate(kept)
    with transaction.atomic():
        calibration = Calibration.objects.create(
            learners=fit.persons,
            responses=fit.responses,
            log_likelihood=fit.log_likelihood,
            iterations=fit.cycles,
            converged=fit.converged,
        )
        ItemParameters.objects.bulk_create(
            ItemParameters(
                calibration=calibration,
                template_slug=f.item,
                discrimination=f.discrimination,
                difficulty=f.difficulty,
                se_discrimination=f.se_discrimination,
                se_difficulty=f.se_difficulty,
                n=f.n,
            )
            for f in fit.items
        )
    return CalibrationResult(calibration, left_out)
