"""Calibrate every template from the database and keep the result.

The responses are certify.calibration_responses'; the fit is certify.psychometrics'.
A template every learner answered alike so far cannot be fitted and is left out of this
calibration (named in the result), as is any template under MIN_RESPONSES answers:
a handful of answers would give parameters whose errors swamp them. Each run is a new
Calibration row; earlier ones stay for the report's history.

Each fitted template is then asked whether its variants differ in difficulty
(certify.psychometrics.variants): every learner's ability is estimated (EAP) from their
responses under the new parameters, and the difficulty of the template is let to move
with the parameters of the variant each learner answered. A flagged template leaves the
certification pools (certify.pools) until a later calibration finds its variants even.
With the same abilities each template's infit and outfit mean squares are kept
(certify.psychometrics.fit): how well the model fits its answers.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from assess.models import Question
from certify.calibration_responses import calibration_responses_with_questions
from certify.models import Calibration, ItemParameters
from certify.psychometrics.calibrate import Fit, calibrate, uniform_items
from certify.psychometrics.fit import mean_squares, predicted
from certify.psychometrics.scoring import eap
from certify.psychometrics.variants import (
    MIN_ANSWERS,
    VariantSpread,
    variant_features,
    variant_spread,
)

MIN_RESPONSES = 30
CHUNK = 2000


@dataclass(frozen=True)
class CalibrationResult:
    calibration: Calibration | None  # None: nothing to calibrate yet
    left_out: dict[str, str]  # template -> why


def calibration_run(*, min_responses: int = MIN_RESPONSES) -> CalibrationResult:
    detailed = calibration_responses_with_questions()
    rows = [(str(learner), template, c) for learner, template, c, _ in detailed]
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
    spreads, fits = _item_checks(fit, [d for d in detailed if d[1] not in left_out])
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
                **_spread_fields(spreads.get(f.item)),
                infit=round(fits[f.item].infit, 4) if f.item in fits else None,
                outfit=round(fits[f.item].outfit, 4) if f.item in fits else None,
            )
            for f in fit.items
        )
    return CalibrationResult(calibration, left_out)


def _spread_fields(spread: VariantSpread | None) -> dict:
    if spread is None:
        return {"variant_spread": None, "variant_spread_se": None, "variants_flagged": False}
    return {
        "variant_spread": round(spread.spread, 4),
        "variant_spread_se": round(spread.se, 4),
        "variants_flagged": spread.flagged,
    }


def _question_params(ids: list[int]) -> dict[int, dict]:
    found: dict[int, dict] = {}
    for start in range(0, len(ids), CHUNK):
        found.update(
            Question.objects.filter(id__in=ids[start : start + CHUNK]).values_list("id", "params")
        )
    return found


def _item_checks(fit: Fit, detailed: list[tuple[int, str, int, int]]) -> tuple[dict, dict]:
    """({template: VariantSpread} for the templates whose answers can test it (enough of
    them, and a parameter that varies; the others are left out, None when stored),
    {template: ItemFitStats} for every fitted template)."""
    params = {f.item: (f.discrimination, f.difficulty) for f in fit.items}
    by_learner: dict[int, list[tuple[str, int]]] = {}
    for learner, template, correct, _ in detailed:
        if template in params:
            by_learner.setdefault(learner, []).append((template, correct))
    theta = {
        learner: eap(
            [c for _, c in answers],
            [params[t][0] for t, _ in answers],
            [params[t][1] for t, _ in answers],
        ).theta
        for learner, answers in by_learner.items()
    }
    answered: dict[str, list[tuple[float, int]]] = {}
    for answers in by_learner.values():
        chances = predicted([(c, *params[t]) for t, c in answers])
        for (template, correct), chance in zip(answers, chances, strict=True):
            answered.setdefault(template, []).append((chance, correct))
    fits = {
        t: mean_squares([p for p, _ in rows], [c for _, c in rows]) for t, rows in answered.items()
    }
    variants = _question_params(sorted({q for *_, q in detailed}))
    per_template: dict[str, list[tuple[float, dict, int]]] = {}
    for learner, template, correct, question in detailed:
        if template in params and question in variants:
            per_template.setdefault(template, []).append(
                (theta[learner], variants[question], correct)
            )
    spreads = {}
    for template, answers in per_template.items():
        features = variant_features([p for _, p, _ in answers])
        if len(answers) < MIN_ANSWERS or not any(
            len(set(col)) > 1 for col in zip(*features, strict=True)
        ):
            continue
        spreads[template] = variant_spread(
            [t for t, _, _ in answers],
            features,
            [c for _, _, c in answers],
            a=params[template][0],
        )
    return spreads, fits
