"""The 2PL calibration pinned to simulated data with known parameters (and to girth
0.8.0's fit of it, a second opinion), and the formulas behind scoring and decisions
checked against independent computations: hand values, brute-force integrals and a
Monte-Carlo simulation."""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
from pathlib import Path

import numpy as np
import pytest

from certify.psychometrics import decisions, twopl
from certify.psychometrics.calibrate import CalibrationError, calibrate
from certify.psychometrics.scoring import eap

pytestmark = pytest.mark.db_independent
REF = Path(__file__).resolve().parents[1] / "data" / "irt-reference"


def reference_rows() -> list[tuple[str, str, int]]:
    text = gzip.decompress((REF / "responses.csv.gz").read_bytes()).decode()
    return [(r["person"], r["item"], int(r["correct"])) for r in csv.DictReader(io.StringIO(text))]


@pytest.fixture(scope="module")
def fitted():
    fit = calibrate(reference_rows())
    truth = json.loads((REF / "truth.json").read_text())["items"]
    girth = json.loads((REF / "girth-fit.json").read_text())["items"]
    return fit, truth, girth


def _arrays(fit, source):
    a = np.array([source[f.item]["discrimination"] for f in fit.items])
    b = np.array([source[f.item]["difficulty"] for f in fit.items])
    return a, b


def test_calibration_recovers_the_true_parameters(fitted):
    fit, truth, _ = fitted
    a, b = _arrays(fit, {f.item: vars(f) for f in fit.items})
    ta, tb = _arrays(fit, truth)
    assert fit.converged and fit.persons == 4000 and fit.responses == 80_000
    assert np.corrcoef(b, tb)[0, 1] >= 0.98 and np.corrcoef(a, ta)[0, 1] >= 0.9
    assert math.sqrt(((b - tb) ** 2).mean()) <= 0.15
    assert math.sqrt(((a - ta) ** 2).mean()) <= 0.2


def test_calibration_lands_beside_girths_fit_and_its_errors_are_honest(fitted):
    fit, truth, girth = fitted
    a, b = _arrays(fit, {f.item: vars(f) for f in fit.items})
    ga, gb = _arrays(fit, girth)
    assert np.abs(a - ga).max() < 0.1 and np.abs(b - gb).max() < 0.1
    # The standard errors say how far the estimates are from the truth: z-scores whose
    # root mean square is near 1 (0.5 or 2 would be errors off by a factor of two).
    ta, tb = _arrays(fit, truth)
    se_b = np.array([f.se_difficulty for f in fit.items])
    se_a = np.array([f.se_discrimination for f in fit.items])
    assert 0.7 <= math.sqrt((((b - tb) / se_b) ** 2).mean()) <= 1.3
    assert 0.7 <= math.sqrt((((a - ta) / se_a) ** 2).mean()) <= 1.3
    assert sum(f.n for f in fit.items) == 80_000


def test_an_item_everyone_answered_alike_is_refused_by_name():
    rows = [("p1", "x", 1), ("p2", "x", 1), ("p1", "y", 0), ("p2", "y", 1)]
    with pytest.raises(CalibrationError, match="item x: all 2 answers are right"):
        calibrate(rows)
    with pytest.raises(CalibrationError, match="no responses"):
        calibrate([])


def test_information_and_the_characteristic_curve_by_hand():
    # a = 2, b = 0 at theta = 0: P = 0.5, information 4 x 0.25 = 1.
    assert twopl.item_information(0.0, 2.0, 0.0) == pytest.approx(1.0)
    p = 1 / (1 + math.exp(-1.5 * (1.0 - 0.2)))
    assert twopl.p_correct(1.0, 1.5, 0.2) == pytest.approx(p)
    a, b = [1.0, 2.0], [0.0, 1.0]
    info = twopl.test_information([1.0], a, b)[0]
    p1, p2 = 1 / (1 + math.exp(-1.0)), 0.5
    assert info == pytest.approx(p1 * (1 - p1) + 4 * p2 * (1 - p2))
    assert twopl.expected_score([1.0], a, b)[0] == pytest.approx(p1 + p2)
    assert decisions.sem_at(1.0, a, b) == pytest.approx(1 / math.sqrt(info))


def test_eap_matches_a_brute_force_integral():
    a, b, y = [1.2, 0.8, 2.0, 1.5], [-0.5, 0.3, 1.0, 0.0], [1, 0, 1, 1]
    grid = np.linspace(-8, 8, 20001)
    prior = np.exp(-(grid**2) / 2)
    like = np.ones_like(grid)
    for ai, bi, yi in zip(a, b, y, strict=True):
        p = 1 / (1 + np.exp(-ai * (grid - bi)))
        like *= p if yi else 1 - p
    post = prior * like / (prior * like).sum()
    mean = (post * grid).sum()
    sd = math.sqrt((post * (grid - mean) ** 2).sum())
    got = eap(y, a, b)
    assert got.theta == pytest.approx(mean, abs=1e-4) and got.se == pytest.approx(sd, abs=1e-4)
    assert eap([1, 1, 1, 1], a, b).theta > eap([0, 0, 0, 0], a, b).theta  # both finite


def test_rudner_accuracy_and_consistency_match_a_simulation():
    rng = np.random.default_rng(7)
    theta_hat = rng.normal(0, 1, 400)
    se = rng.uniform(0.2, 0.6, 400)
    cut = 0.5
    draws = theta_hat[:, None] + se[:, None] * rng.standard_normal((400, 20000))
    classified = theta_hat >= cut
    accuracy = ((draws >= cut) == classified[:, None]).mean()
    again = theta_hat[:, None] + se[:, None] * rng.standard_normal((400, 20000))
    consistency = ((draws >= cut) == (again >= cut)).mean()
    assert decisions.classification_accuracy(theta_hat, se, cut) == pytest.approx(
        accuracy, abs=0.003
    )
    assert decisions.decision_consistency(theta_hat, se, cut) == pytest.approx(
        consistency, abs=0.003
    )
    spread = theta_hat.var()
    assert decisions.marginal_reliability(theta_hat, se) == pytest.approx(
        spread / (spread + (se**2).mean())
    )


def test_the_exam_length_a_pool_needs():
    """Items of a = 1.2 at the cut theta = 0.5: about 20 reach 0.9 (the issue's figure);
    sharper items need fewer; a pool too flat to reach it says so."""
    n = decisions.required_length(0.5, [1.2], [0.5])
    assert 15 <= n <= 25
    assert decisions.expected_accuracy(0.5, [1.2] * n, [0.5] * n) >= 0.9
    assert decisions.expected_accuracy(0.5, [1.2] * (n - 1), [0.5] * (n - 1)) < 0.9
    assert decisions.required_length(0.5, [2.5], [0.5]) < n
    assert decisions.required_length(0.5, [0.1], [0.5], most=30) is None


def test_item_fit_is_about_one_for_model_data_and_high_for_noise():
    from certify.psychometrics.fit import item_fit

    rng = np.random.default_rng(11)
    theta = rng.normal(0, 1, 4000)
    p = 1 / (1 + np.exp(-1.5 * (theta - 0.2)))
    fits = item_fit(theta, (rng.random(4000) < p).astype(int), 1.5, 0.2)
    assert 0.9 < fits.infit < 1.1 and 0.85 < fits.outfit < 1.15 and not fits.misfits
    # Answers unrelated to ability (a template that grades at random) misfit.
    noise = item_fit(theta, (rng.random(4000) < 0.5).astype(int), 1.5, 0.2)
    assert noise.infit > 1.3 and noise.misfits
    # Worked by hand: one answer right at P = 0.5 and one wrong at P = 0.5: z^2 = 1 each.
    one = item_fit([0.0, 0.0], [1, 0], 1.0, 0.0)
    assert one.infit == pytest.approx(1.0) and one.outfit == pytest.approx(1.0)


def test_fit_from_the_other_answers_finds_the_template_that_grades_at_random():
    from certify.psychometrics.fit import mean_squares, predicted

    rng = np.random.default_rng(12)
    a, b = rng.uniform(0.8, 2.0, 8), rng.normal(0, 1, 8)
    rows: dict[int, list] = {j: [] for j in range(8)}
    for theta in rng.normal(0, 1, 1500):
        p = 1 / (1 + np.exp(-a * (theta - b)))
        y = (rng.random(8) < p).astype(int)
        y[7] = int(rng.random() < 0.5)  # the last one ignores ability
        for j, chance in enumerate(predicted([(int(y[k]), a[k], b[k]) for k in range(8)])):
            rows[j].append((chance, int(y[j])))
    fits = {j: mean_squares([p for p, _ in r], [c for _, c in r]) for j, r in rows.items()}
    assert all(0.85 < fits[j].infit < 1.15 for j in range(7))  # seed 12: 0.94 to 1.11
    assert fits[7].infit > 1.5 and fits[7].misfits  # 2.5
