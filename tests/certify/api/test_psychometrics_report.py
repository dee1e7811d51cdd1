"""GET /api/tracks/{slug}/psychometrics/: staff only, and its figures are their formulas
(computed here independently of certify.psychometrics: numerical integration by a plain
Riemann sum, the SEM from the information summed by hand)."""

from __future__ import annotations

import math

import pytest
from rest_framework.test import APIClient

from certify.models import Calibration, ExamDecision, ItemParameters
from certify.services.exam_decisions import standard_set
from tests.assess.helpers import answer_question
from tests.certify.api.conftest import master
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db]

SERVING = "inference-serving-oncall"


def _client(user) -> APIClient:
    c = APIClient()
    c.force_authenticate(user)
    return c


def _calibrate(track) -> dict[str, tuple[float, float]]:
    cal = Calibration.objects.create(
        learners=300, responses=3000, log_likelihood=-1.0, iterations=5, converged=True
    )
    pools = sorted(
        {t for s in track.exam.slots.all() for t in s.templates if not t.startswith("drill-")}
    )
    params = {}
    for k, slug in enumerate(pools):
        a, b = 0.8 + 0.05 * k, -1.0 + 0.1 * k
        params[slug] = (a, b)
        ItemParameters.objects.create(
            calibration=cal, template_slug=slug, discrimination=a, difficulty=b,
            se_discrimination=0.1, se_difficulty=0.05, n=300,
        )  # fmt: skip
    return params


def _phi(x: float) -> float:
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


def _info(theta, params) -> float:
    total = 0.0
    for a, b in params.values():
        p = 1 / (1 + math.exp(-a * (theta - b)))
        total += a * a * p * (1 - p)
    return total


def _rudner(cut, params) -> tuple[float, float]:
    """Accuracy and consistency over theta ~ N(0, 1) by a fine Riemann sum."""
    acc = cons = 0.0
    step = 0.01
    for k in range(-800, 801):
        theta = k * step
        w = math.exp(-theta * theta / 2) / math.sqrt(2 * math.pi) * step
        p = _phi((theta - cut) * math.sqrt(_info(theta, params)))
        acc += w * max(p, 1 - p)
        cons += w * (p * p + (1 - p) ** 2)
    return acc, cons


def test_only_staff_read_it(loaded_tracks):
    for user in (UserFactory(), UserFactory()):
        r = _client(user).get(f"/api/tracks/{SERVING}/psychometrics/")
        assert r.status_code == 404
    staff = UserFactory(is_staff=True)
    assert _client(staff).get("/api/tracks/no-such-track/psychometrics/").status_code == 404


def test_before_any_calibration_the_figures_are_null(loaded_tracks):
    body = _client(UserFactory(is_staff=True)).get(f"/api/tracks/{SERVING}/psychometrics/")
    body = body.json()
    assert body["calibration"] is None and body["sem_at_cut"] is None
    assert body["cut"] == 0.5 and "no standard setting" in body["cut_source"]
    pools = {t for s in loaded_tracks[SERVING].exam.slots.all() for t in s.templates}
    scored = {t for t in pools if not t.startswith("drill-")}
    assert len(body["items"]) == len(scored) and all(
        i["discrimination"] is None for i in body["items"]
    )
    assert body["reference_form"] == [] and body["form_expected_scores"] is None


def test_the_report_figures_are_their_formulas(loaded_tracks):
    track = loaded_tracks[SERVING]
    params = _calibrate(track)
    staff = UserFactory(is_staff=True)
    ratings = {t: [0.7] for t in params}
    setting = standard_set(user=staff, track=track, ratings=ratings)
    from assess.services.attempts import attempt_finish, attempt_start
    from certify.services.certificates import certificates_issue_due

    for right in (True, False):
        learner = UserFactory()
        master(learner, track)
        attempt, _ = attempt_start(quiz=track.exam, learner=learner)
        for q in attempt.questions.filter(active=True):
            answer_question(attempt, q, right=right)
        attempt_finish(attempt=attempt)
        certificates_issue_due(user_id=learner.pk)

    body = _client(staff).get(f"/api/tracks/{SERVING}/psychometrics/").json()
    cut = setting.cut_theta
    # The reference form, worked here: the slots' pools are disjoint, so it is each
    # slot's most informative template at the cut.
    best = [
        max(s.templates, key=lambda t: _info(cut, {t: params[t]}))
        for s in track.exam.slots.order_by("order")
        if not s.templates[0].startswith("drill-")
    ]
    assert sorted(body["reference_form"]) == sorted(best)
    form = {t: params[t] for t in best}
    assert body["cut"] == pytest.approx(cut) and body["standard_setting"]["version"] == 1
    assert body["sem_at_cut"] == pytest.approx(1 / math.sqrt(_info(cut, form)), abs=1e-4)
    expected = sum(1 / (1 + math.exp(-a * (cut - b))) for a, b in form.values())
    assert body["reference_expected_score"] == pytest.approx(expected, abs=1e-3)
    spread = body["form_expected_scores"]
    assert spread["forms"] == 2 and spread["min"] <= spread["max"]
    acc, cons = _rudner(cut, form)
    assert body["expected_accuracy"] == pytest.approx(acc, abs=2e-3)
    assert body["expected_consistency"] == pytest.approx(cons, abs=2e-3)
    assert body["attempts"] == 2
    # Each form took one template per slot: the exposures of a slot's pool sum to 1.
    exposure = {i["template"]: i["exposure"] for i in body["items"]}
    for s in track.exam.slots.all():
        if not s.templates[0].startswith("drill-"):
            assert sum(exposure[t] for t in s.templates) == pytest.approx(1.0)
    by_slug = {i["template"]: i for i in body["items"]}
    some = next(iter(params))
    assert by_slug[some]["discrimination"] == pytest.approx(params[some][0])
    assert [h["n"] for h in by_slug[some]["history"]] == [300]
    decided = list(ExamDecision.objects.values_list("theta", "se"))
    assert body["decided_on_ability"] == len(decided) == 2
    thetas, ses = [t for t, _ in decided], [s for _, s in decided]
    mean = sum(thetas) / 2
    var = sum((t - mean) ** 2 for t in thetas) / 2
    assert body["marginal_reliability"] == pytest.approx(
        var / (var + sum(s * s for s in ses) / 2), abs=1e-4
    )
    observed = sum(_phi(abs(t - cut) / s) for t, s in decided) / 2
    assert body["observed_accuracy"] == pytest.approx(observed, abs=1e-4)


def test_the_staff_page_shows_the_same_figures(loaded_tracks, client):
    track = loaded_tracks[SERVING]
    params = _calibrate(track)
    staff = UserFactory(is_staff=True)
    client.force_login(staff)
    page = client.get(f"/certify/{SERVING}/psychometrics/")
    assert page.status_code == 200
    text = page.content.decode()
    some = next(iter(params))
    assert f"<code>{some}</code>" in text and "SEM at the cut" in text
    assert "theta 0.5" in text  # no standard setting yet, and the page says so
    client.force_login(UserFactory())
    assert client.get(f"/certify/{SERVING}/psychometrics/").status_code == 404


def test_flagged_variants_show_withheld_or_kept_by_their_slot(loaded_tracks, client):
    track = loaded_tracks["fleet-bringup-health"]
    _calibrate(track)
    slots = list(track.exam.slots.order_by("order"))
    pair = slots[0].templates
    # A slot whose pool holds one template: a flagged template there stays drawn (kept).
    slots[-1].templates = slots[-1].templates[:1]
    slots[-1].save(update_fields=["templates"])
    alone = slots[-1].templates[0]
    ItemParameters.objects.filter(template_slug__in=[pair[0], alone]).update(
        variants_flagged=True, variant_spread=0.8, variant_spread_se=0.1
    )
    ItemParameters.objects.filter(template_slug=pair[1]).update(
        variant_spread=0.1, variant_spread_se=0.05
    )
    staff = UserFactory(is_staff=True)
    body = _client(staff).get(f"/api/tracks/{track.slug}/psychometrics/").json()
    rows = {r["template"]: r for r in body["items"]}
    assert rows[pair[0]]["variants_flagged"] and rows[pair[0]]["pool_status"] == "withheld"
    assert rows[alone]["pool_status"] == "kept" and rows[alone]["variant_spread"] == 0.8
    assert rows[pair[1]]["pool_status"] == "drawn" and not rows[pair[1]]["variants_flagged"]
    client.force_login(staff)
    text = client.get(f"/certify/{track.slug}/psychometrics/").content.decode()
    assert "withheld from the pools" in text and "widen the pool" in text
