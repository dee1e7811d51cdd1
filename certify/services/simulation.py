"""Simulate a track's certification exam to see how well it decides (issue 41).

Simulated learners, abilities drawn from N(0, 1), take the track's real exam through the
real services (attempt_start draws their forms, response_submit grades their answers,
attempt_finish scores them), answering each question right with the 2PL chance of its
template (calibrated parameters, or given ones). Then the responses are calibrated and
every learner's ability estimated (EAP) as the exam would, and the decisions at the cut
are compared with the truth. Everything runs inside one transaction that is rolled back
at the end: no simulated learner, attempt or answer is ever left behind, and no real
learner is touched.

Abilities, and each learner's luck on each template, follow from the seed; the forms
are drawn by the services, whose seeds include the attempt's id, so where ids are not
reused (PostgreSQL's sequences survive the rollback) a rerun may draw other templates
from the pools and its figures move by sampling error, as a second cohort's would.
A question's answers are all right or all wrong together (its first part is the item);
a wrong answer is readable and wrong by a factor no misconception detector knows.
Incident drills are not 2PL items (they are scored by their own rubric): a simulated
learner submits a drill's right diagnosis with the chance of an average item (a = 1,
b = 0) at their ability, a wrong fault kind otherwise, and drills stay out of the fit.
Without a calibration or given parameters, each template gets a typical item's
parameters: a = 1.7 and b drawn from N(0, 1) with the seed (said in the result), which
shows how the exam's length decides accuracy, not how hard today's templates are. 1.7 is
a discrimination of 1 on the normal-ogive scale (D = 1.702) written on our logistic
scale, the conventional "typical" item, and the one that reproduces both of issue 41's
anchors (6 such items decide about 0.84 of learners right at theta = 0.5, 20 about 0.9);
a = 1 on the logistic scale is a flatter item than that (20 of them: about 0.87). Given
or drawn parameters are stored as the latest calibration inside the transaction, so the
forms are assembled on them as a calibrated track's are (certify.forms); the result
says how exposed the most drawn template was and how far the forms' expected scores at
the cut spread.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np
from django.contrib.auth import get_user_model
from django.db import transaction

from assess.models import SkillMastery
from assess.selectors.drills import drill_of
from assess.services.attempts import attempt_finish, attempt_start
from assess.services.drills import drill_submit
from assess.services.responses import response_submit
from assess.skills import is_drill
from certify.models import Calibration, ItemParameters, Track
from certify.psychometrics import decisions
from certify.psychometrics.assembly import BAND_PER_ITEM, EXPOSURE_LIMIT, reference_form
from certify.psychometrics.calibrate import calibrate, uniform_items
from certify.psychometrics.scoring import eap
from certify.psychometrics.twopl import expected_score, p_correct
from certify.selectors import track_rules
from certify.services.exam_decisions import MIN_ITEM_RESPONSES
from problems.drills.faults.base import FAULT_KINDS

MAX_LEARNERS = 5000
TYPICAL_DISCRIMINATION = 1.7  # normal-ogive 1 on the logistic scale (see above)


@dataclass(frozen=True)
class Simulated:
    theta: float
    answers: dict[str, int]  # template -> 0/1
    raw_passed: bool


def _answer_text(part: dict, right: bool) -> str:
    if part["kind"] == "choice":
        if right:
            return str(part["value"])
        ok = {part["value"], *part.get("also_correct", ())}
        return next(c for c in part["choices"] if c not in ok)
    value = part["value"] if right else part["value"] * 37 + (1 if part["kind"] == "integer" else 0)
    if part["kind"] == "integer":
        return str(int(value))
    return f"{value!r} {part['unit']}".strip()


def _pools(track: Track) -> list[str]:
    """The templates of the exam's pools: its 2PL items (drills are not)."""
    return sorted({t for slot in track.exam.slots.all() for t in slot.templates if not is_drill(t)})


def parameters_for(track: Track, rng: random.Random, given: dict | None) -> tuple[dict, str]:
    """{template: (a, b)} for the track's pools, and where they came from."""
    templates = _pools(track)
    if given is not None:
        missing = [t for t in templates if t not in given]
        if missing:
            raise ValueError(f"no parameters for {', '.join(missing)}")
        return {t: tuple(given[t]) for t in templates}, "given"
    latest = Calibration.objects.order_by("-fitted_at", "-id").first()
    if latest is not None:
        found = {i.template_slug: (i.discrimination, i.difficulty) for i in latest.items.all()}
        if all(t in found for t in templates):
            return {t: found[t] for t in templates}, f"calibration {latest.pk}"
    drawn = {t: (TYPICAL_DISCRIMINATION, rng.gauss(0, 1)) for t in templates}
    return drawn, f"drawn: a = {TYPICAL_DISCRIMINATION}, b ~ N(0, 1)"


def _learners(n: int, seed: int, track: Track) -> list:
    User = get_user_model()
    users = User.objects.bulk_create(
        User(username=f"simulated-{seed}-{i}", email="") for i in range(n)
    )
    skills = track_rules([track])[track.pk].skills
    SkillMastery.objects.bulk_create(
        SkillMastery(learner=u, skill=s, p_mastery=0.99, responses=10)
        for u in users
        for s in skills
    )
    return users


def _take(track: Track, user, theta: float, params: dict, key: str) -> Simulated:
    attempt, _ = attempt_start(quiz=track.exam, learner=user)
    answers = {}
    for question in attempt.questions.filter(active=True).order_by("order"):
        if is_drill(question.template_slug):
            luck = random.Random(f"{key}:{question.template_slug}").random()
            submit_drill(attempt, question, luck < float(p_correct(theta, 1.0, 0.0)))
            continue
        a, b = params[question.template_slug]
        luck = random.Random(f"{key}:{question.template_slug}").random()
        right = luck < float(p_correct(theta, a, b))
        answers[question.template_slug] = int(right)
        for n, part in enumerate(question.answers):
            response_submit(
                attempt=attempt,
                question=question,
                part=part["name"],
                text=_answer_text(part, right),
                idempotency_key=f"sim-{question.pk}-{n}",
            )
    attempt = attempt_finish(attempt=attempt)
    return Simulated(theta, answers, bool(attempt.passed))


def submit_drill(attempt, question, right: bool, key: str = "sim-") -> None:
    """Submit a drill's right diagnosis and remedy, or the same with a wrong fault kind
    (no action taken): how simulated learners, and the tests, answer a drill."""
    answer = drill_of(question).answer
    fault = answer.fault if right else next(k for k in FAULT_KINDS if k != answer.fault)
    drill_submit(
        attempt=attempt,
        question=question,
        fault=fault,
        location=answer.location,
        remedy=answer.remedy,
        idempotency_key=f"{key}{question.pk}",
    )


def _as_calibration(params: dict, source: str) -> None:
    """Given or drawn parameters become the latest calibration, on enough answers for
    the forms to be assembled on them (inside the simulation's rolled-back transaction)."""
    if source.startswith("calibration"):
        return
    calibration = Calibration.objects.create(
        learners=0, responses=0, log_likelihood=0.0, iterations=0, converged=True
    )
    ItemParameters.objects.bulk_create(
        ItemParameters(
            calibration=calibration,
            template_slug=t,
            discrimination=a,
            difficulty=b,
            se_discrimination=0.0,
            se_difficulty=0.0,
            n=MIN_ITEM_RESPONSES,
        )  # fmt: skip
        for t, (a, b) in params.items()
    )


def _forms(track: Track, taken: list[Simulated], params: dict, cut: float) -> dict:
    """How the forms came out: each template's exposure (share of forms) against the
    limit, where its slot's pool lets the limit hold, and the spread of the forms'
    expected scores at the cut around the reference form's."""
    pools = [
        [t for t in slot.templates if not is_drill(t)]
        for slot in track.exam.slots.order_by("order")
        if not all(is_drill(t) for t in slot.templates)
    ]
    width = math.ceil(1 / EXPOSURE_LIMIT - 1e-9)
    limited = {t for pool in pools if len(pool) >= width for t in pool}
    counts: dict[str, int] = {}
    for s in taken:
        for t in s.answers:
            counts[t] = counts.get(t, 0) + 1
    exposure = {t: counts.get(t, 0) / len(taken) for t in limited}
    top = max(exposure, key=exposure.get) if exposure else None
    ab = {t: params[t] for t in params}
    reference = reference_form(pools, ab, cut)
    ref_score = float(expected_score(cut, *zip(*(ab[t] for t in reference), strict=True))[0])
    scores = [
        float(expected_score(cut, *zip(*(ab[t] for t in s.answers), strict=True))[0])
        for s in taken
        if s.answers
    ]
    return {
        "exposure_limit": EXPOSURE_LIMIT,
        "max_exposure": round(exposure[top], 4) if top else None,
        "most_exposed": top,
        "reference_expected_score_at_cut": round(ref_score, 3),
        "expected_score_at_cut": {
            "min": round(min(scores), 3) if scores else None,
            "max": round(max(scores), 3) if scores else None,
        },
        "band_points": round(BAND_PER_ITEM * len(pools), 3),
    }


def _agreement(truth: np.ndarray, decided: np.ndarray) -> float:
    return float((truth == decided).mean())


def simulate(
    *, track: Track, learners: int, seed: int, cut: float = 0.5, given: dict | None = None
) -> dict:
    if not 1 <= learners <= MAX_LEARNERS:
        raise ValueError(f"--learners must be between 1 and {MAX_LEARNERS}")
    rng = random.Random(seed)
    params, source = parameters_for(track, rng, given)
    with transaction.atomic():
        _as_calibration(params, source)
        users = _learners(learners, seed, track)
        thetas = [rng.gauss(0, 1) for _ in users]
        taken = [
            _take(track, u, theta, params, f"{seed}:{i}")
            for i, (u, theta) in enumerate(zip(users, thetas, strict=True))
        ]
        result = _report(taken, params, source, cut)
        result["forms"] = _forms(track, taken, params, cut)
        transaction.set_rollback(True)  # nothing simulated is kept
    return {"track": track.slug, "learners": learners, "seed": seed, **result}


def _report(taken: list[Simulated], params: dict, source: str, cut: float) -> dict:
    rows = [(str(i), t, c) for i, s in enumerate(taken) for t, c in s.answers.items()]
    alike = uniform_items(rows)  # too few learners to see both answers: not fitted
    fit = calibrate([r for r in rows if r[1] not in alike])
    fitted = {f.item: (f.discrimination, f.difficulty) for f in fit.items}
    scoring = {t: fitted.get(t, params[t]) for t in params}
    thetas, ses = [], []
    for s in taken:
        items = list(s.answers)
        est = eap([s.answers[t] for t in items], [scoring[t][0] for t in items],
                  [scoring[t][1] for t in items])  # fmt: skip
        thetas.append(est.theta)
        ses.append(est.se)
    truth = np.array([s.theta for s in taken])
    theta_hat, se = np.array(thetas), np.array(ses)
    common = sorted(fitted)
    true_b = np.array([params[t][1] for t in common])
    got_b = np.array([fitted[t][1] for t in common])
    return {
        "parameters": source,
        "items_per_form": round(float(np.mean([len(s.answers) for s in taken])), 2),
        "cut": cut,
        "recovery": {
            "theta_correlation": round(float(np.corrcoef(truth, theta_hat)[0, 1]), 4),
            "difficulty_rmse": round(math.sqrt(float(((got_b - true_b) ** 2).mean())), 4),
        },
        "classification_accuracy": round(_agreement(truth >= cut, theta_hat >= cut), 4),
        "expected_accuracy": round(decisions.classification_accuracy(theta_hat, se, cut), 4),
        "decision_consistency": round(decisions.decision_consistency(theta_hat, se, cut), 4),
        "marginal_reliability": round(decisions.marginal_reliability(theta_hat, se), 4),
        "raw_rule_accuracy": round(
            _agreement(truth >= cut, np.array([s.raw_passed for s in taken])), 4
        ),
    }
