"""The psychometrics report of a track (issue 41): what the latest calibration says about
its exam's templates, and how well its forms decide at the cut.

Per template of the exam's pools (incident drills are scored by their own rubric and are
not items): the 2PL discrimination and difficulty with their standard errors and sample
size in the latest calibration, its infit and outfit, its history over every
calibration, its exposure (the share of the track's exam attempts whose form drew it),
and whether its variants differ in difficulty (flagged: withheld from its slots' pools).
Per track: the cut (the latest standard setting, else the default theta 0.5 the
simulation uses, said so), the reference form (the calibrated templates assembled to the
most information at the cut, one per slot: certify.psychometrics.assembly), the standard
error of measurement at the cut of that form, Rudner's expected classification accuracy
and consistency of that form over theta ~ N(0, 1), the length a form needs for an
accuracy of 0.9, the spread of the finished attempts' forms' expected scores at the cut
around the reference's, and, over the attempts decided on ability, the marginal
reliability and the observed accuracy and consistency of their estimates. A figure that
cannot be computed yet is None. Eight queries however many templates, calibrations and
attempts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count

from assess.models import Attempt, Question
from assess.skills import is_drill
from certify.models import Calibration, ExamDecision, ItemParameters, StandardSetting, Track
from certify.psychometrics import decisions
from certify.psychometrics.assembly import reference_form
from certify.psychometrics.twopl import expected_score

DEFAULT_CUT = 0.5


@dataclass(frozen=True)
class ItemRow:
    template: str
    discrimination: float | None
    difficulty: float | None
    se_discrimination: float | None
    se_difficulty: float | None
    n: int
    exposure: float | None  # share of the exam's attempts that drew it
    history: list[dict] = field(default_factory=list)  # [{calibration, fitted_at, a, b, n}]
    variant_spread: float | None = None  # SD of its variants' difficulty shift, logits
    variant_spread_se: float | None = None
    variants_flagged: bool = False
    # "drawn", "withheld" (flagged: left out of its slots' pools) or "kept" (flagged, but
    # the only template of a slot, so the exam still draws it: widen that pool).
    pool_status: str = "drawn"
    infit: float | None = None  # mean squares (certify.psychometrics.fit): about 1 fits
    outfit: float | None = None


@dataclass(frozen=True)
class TrackReport:
    track: Track
    calibration: Calibration | None
    standard_setting: StandardSetting | None
    cut: float
    cut_source: str
    items: list[ItemRow]
    attempts: int
    sem_at_cut: float | None
    expected_accuracy: float | None
    expected_consistency: float | None
    required_length: int | None
    decided_on_ability: int
    marginal_reliability: float | None
    observed_accuracy: float | None
    observed_consistency: float | None
    calibrated_at: datetime | None = None
    # The form assembled to the most information at the cut (certify.psychometrics.
    # assembly), on which the per-track figures above are computed, its expected score at
    # the cut, and how the forms actually drawn spread around it.
    reference_form: list[str] = field(default_factory=list)
    reference_expected_score: float | None = None
    form_expected_scores: dict | None = None


def _pools(track: Track) -> list[str]:
    return sorted({t for s in track.exam.slots.all() for t in s.templates if not is_drill(t)})


def _pool_status(track: Track, flagged: set[str]) -> dict[str, str]:
    """As assess.services.questions.question_draw treats a withheld template."""
    status: dict[str, str] = {}
    for slot in track.exam.slots.all():
        alone = all(t in flagged for t in slot.templates)
        for t in slot.templates:
            if t not in flagged:
                status[t] = "drawn"
            elif alone:
                status[t] = "kept"
            else:
                status.setdefault(t, "withheld")
    return status


def track_report(*, track: Track) -> TrackReport:
    templates = _pools(track)
    setting = track.standard_settings.order_by("-version").first()
    cut, source = (
        (setting.cut_theta, f"standard setting v{setting.version}")
        if setting
        else (DEFAULT_CUT, "no standard setting yet: theta 0.5, the simulation's default")
    )
    rows = list(
        ItemParameters.objects.filter(template_slug__in=templates)
        .select_related("calibration")
        .order_by("calibration__fitted_at", "calibration_id")
    )
    latest = Calibration.objects.order_by("-fitted_at", "-id").first() if rows else None
    history: dict[str, list[dict]] = {t: [] for t in templates}
    current: dict[str, ItemParameters] = {}
    for p in rows:
        history[p.template_slug].append(
            {"calibration": p.calibration_id, "fitted_at": p.calibration.fitted_at,
             "discrimination": p.discrimination, "difficulty": p.difficulty, "n": p.n}
        )  # fmt: skip
        if latest is not None and p.calibration_id == latest.pk:
            current[p.template_slug] = p
    attempts = Attempt.objects.filter(quiz=track.exam).exclude(status=Attempt.Status.OPEN).count()
    drawn = dict(
        Question.objects.filter(attempt__quiz=track.exam, active=True, template_slug__in=templates)
        .exclude(attempt__status=Attempt.Status.OPEN)
        .values_list("template_slug")
        .annotate(n=Count("attempt", distinct=True))
    )
    flagged = {t for t, p in current.items() if p.variants_flagged}
    status = _pool_status(track, flagged)
    items = [
        ItemRow(
            template=t,
            discrimination=getattr(current.get(t), "discrimination", None),
            difficulty=getattr(current.get(t), "difficulty", None),
            se_discrimination=getattr(current.get(t), "se_discrimination", None),
            se_difficulty=getattr(current.get(t), "se_difficulty", None),
            n=getattr(current.get(t), "n", 0),
            exposure=round(drawn.get(t, 0) / attempts, 4) if attempts else None,
            history=history[t],
            variant_spread=getattr(current.get(t), "variant_spread", None),
            variant_spread_se=getattr(current.get(t), "variant_spread_se", None),
            variants_flagged=t in flagged,
            pool_status=status.get(t, "drawn"),
            infit=getattr(current.get(t), "infit", None),
            outfit=getattr(current.get(t), "outfit", None),
        )
        for t in templates
    ]
    pools = [
        [t for t in slot.templates if t in current]
        for slot in track.exam.slots.all()
        if any(t in current for t in slot.templates)
    ]
    ab = {t: (p.discrimination, p.difficulty) for t, p in current.items()}
    reference = reference_form(pools, ab, cut) if pools else ()
    a = [ab[t][0] for t in reference]
    b = [ab[t][1] for t in reference]
    spread = _form_spread(track, ab, cut) if ab else None
    decided = list(
        ExamDecision.objects.filter(
            attempt__quiz=track.exam, rule=ExamDecision.Rule.ABILITY
        ).values_list("theta", "se")
    )
    thetas = [t for t, _ in decided]
    ses = [s for _, s in decided]
    return TrackReport(
        track=track,
        calibration=latest,
        standard_setting=setting,
        cut=cut,
        cut_source=source,
        items=items,
        attempts=attempts,
        sem_at_cut=_round(decisions.sem_at(cut, a, b)) if a else None,
        expected_accuracy=_round(decisions.expected_accuracy(cut, a, b)) if a else None,
        expected_consistency=_round(decisions.expected_consistency(cut, a, b)) if a else None,
        required_length=decisions.required_length(cut, a, b) if a else None,
        decided_on_ability=len(decided),
        marginal_reliability=_round(decisions.marginal_reliability(thetas, ses))
        if len(decided) >= 2
        else None,
        observed_accuracy=_round(decisions.classification_accuracy(thetas, ses, cut))
        if decided
        else None,
        observed_consistency=_round(decisions.decision_consistency(thetas, ses, cut))
        if decided
        else None,
        calibrated_at=latest.fitted_at if latest else None,
        reference_form=list(reference),
        reference_expected_score=_round(expected_score(cut, a, b)[0]) if a else None,
        form_expected_scores=spread,
    )


def _form_spread(track: Track, ab: dict, cut: float) -> dict | None:
    """The expected score at the cut of every finished attempt's form (its scored
    templates under the latest calibration): min, max and SD, over the forms whose
    templates are all calibrated; None before any."""
    forms: dict[int, list[str]] = {}
    for attempt, template in (
        Question.objects.filter(attempt__quiz=track.exam, active=True)
        .exclude(attempt__status=Attempt.Status.OPEN)
        .values_list("attempt_id", "template_slug")
    ):
        if not is_drill(template):
            forms.setdefault(attempt, []).append(template)
    scores = [
        float(expected_score(cut, [ab[t][0] for t in f], [ab[t][1] for t in f])[0])
        for f in forms.values()
        if f and all(t in ab for t in f)
    ]
    if not scores:
        return None
    mean = sum(scores) / len(scores)
    sd = (sum((x - mean) ** 2 for x in scores) / len(scores)) ** 0.5
    return {"forms": len(scores), "min": _round(min(scores)), "max": _round(max(scores)),
            "sd": _round(sd)}  # fmt: skip


def _round(x: float) -> float:
    return round(float(x), 4)
