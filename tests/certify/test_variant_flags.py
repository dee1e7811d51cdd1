"""Issue 41, item 2: a calibration asks each template whether its variants differ in
difficulty, keeps the answer per template, and the certification pools leave a flagged
template out of every slot that holds another (a slot holding only it keeps it)."""

from __future__ import annotations

import math
import random

import pytest

from assess.models import Quiz, Slot
from assess.services.questions import question_draw
from assess.signals import certification_withheld
from certify.models import Calibration, ItemParameters
from certify.pools import flagged_templates
from certify.psychometrics.variants import variant_features
from certify.services import calibration as service


def _p(theta: float, a: float, b: float) -> float:
    return 1 / (1 + math.exp(-a * (theta - b)))


def _responses(n: int = 1200, seed: int = 5):
    """A planted template whose B200 variants are 1.6 logits harder than its H100 ones,
    one whose variants differ only in a number that does not matter, and one anchor."""
    rng = random.Random(seed)
    rows, params = [], {}
    for person in range(n):
        theta = rng.gauss(0, 1)
        gpu = rng.choice(["h100-sxm", "b200"])
        batch = rng.choice([8, 16, 32, 64])
        items = {
            "t-planted": (1.4, 1.6 if gpu == "b200" else 0.0, {"gpu": gpu, "batch": batch}),
            "t-even": (1.4, 0.4, {"gpu": gpu, "batch": batch}),
            "t-anchor": (1.0, -0.5, {"n": 1}),
        }
        for template, (a, b, p) in items.items():
            qid = len(rows) + 1
            rows.append((person, template, int(rng.random() < _p(theta, a, b)), qid))
            params[qid] = p
    return rows, params


@pytest.mark.django_db
def test_a_template_with_variants_of_two_difficulties_is_flagged_and_stored(monkeypatch):
    rows, params = _responses()
    monkeypatch.setattr(service, "calibration_responses_with_questions", lambda: rows)
    monkeypatch.setattr(service, "_question_params", lambda ids: {i: params[i] for i in ids})
    result = service.calibration_run()
    items = {i.template_slug: i for i in result.calibration.items.all()}
    planted, even = items["t-planted"], items["t-even"]
    # Half the answers 1.6 logits harder: the difficulty shift has SD 0.8.
    assert planted.variants_flagged and 0.6 < planted.variant_spread < 1.0
    assert planted.variant_spread > 2 * planted.variant_spread_se
    assert not even.variants_flagged and even.variant_spread < 0.3
    # A parameter that never varies cannot be tested: nothing is stored for it.
    anchor = items["t-anchor"]
    assert anchor.variant_spread is None and not anchor.variants_flagged
    assert flagged_templates() == {"t-planted"}
    # The same abilities give each template's fit: model data fits.
    assert all(0.9 < i.infit < 1.1 and 0.9 < i.outfit < 1.1 for i in items.values())


def test_features_take_numbers_as_they_are_and_text_as_indicators():
    rows = variant_features(
        [
            {"gpu": "h100", "batch": 8, "ok": True, "shape": [1, 2]},
            {"gpu": "b200", "batch": 16},
            {"gpu": "mi300x", "batch": 32},
        ]
    )
    # columns: batch; gpu is b200 is the first level (left out), so h100 and mi300x
    assert rows == [[8.0, 1.0, 0.0], [16.0, 0.0, 0.0], [32.0, 0.0, 1.0]]


def _flag(template: str) -> None:
    calibration = Calibration.objects.create(
        learners=100, responses=300, log_likelihood=-1.0, iterations=3, converged=True
    )
    ItemParameters.objects.create(
        calibration=calibration,
        template_slug=template,
        discrimination=1.0,
        difficulty=0.0,
        se_discrimination=0.1,
        se_difficulty=0.1,
        n=100,
        variant_spread=0.9,
        variant_spread_se=0.1,
        variants_flagged=True,
    )


@pytest.mark.django_db
def test_only_the_latest_calibration_withholds():
    _flag("weights-memory")
    quiz = Quiz(mode=Quiz.Mode.CERTIFICATION)
    assert certification_withheld(quiz=quiz) == {"weights-memory"}
    # A later calibration that finds it even again returns it to the pools.
    Calibration.objects.create(
        learners=100, responses=300, log_likelihood=-1.0, iterations=3, converged=True
    )
    assert certification_withheld(quiz=quiz) == frozenset()


@pytest.mark.django_db
def test_a_withheld_template_is_never_drawn_from_a_pool_that_holds_others():
    _flag("weights-memory")
    withheld = certification_withheld(quiz=Quiz(mode=Quiz.Mode.CERTIFICATION))
    slot = Slot(pk=7, templates=["weights-memory", "tp-min-gpus"])
    drawn = {
        question_draw(attempt_id=a, slot=slot, order=1, variant_number=0, withheld=withheld)[
            1
        ].template.slug
        for a in range(40)
    }
    assert drawn == {"tp-min-gpus"}
    without = {
        question_draw(attempt_id=a, slot=slot, order=1, variant_number=0)[1].template.slug
        for a in range(40)
    }
    assert without == {"weights-memory", "tp-min-gpus"}  # the test can tell
    alone = Slot(pk=8, templates=["weights-memory"])
    kept = question_draw(attempt_id=1, slot=alone, order=1, variant_number=0, withheld=withheld)
    assert kept[1].template.slug == "weights-memory"


def test_a_certification_attempt_leaves_the_flagged_template_out(tracks):
    from assess.services.attempts import attempt_start
    from tests.certify.conftest import set_mastery
    from tests.factories import UserFactory

    track = tracks["fleet-bringup-health"]
    pair = next(s.templates for s in track.exam.slots.all() if len(s.templates) == 2)
    _flag(pair[0])
    drawn = set()
    for _ in range(12):
        learner = UserFactory()
        set_mastery(learner, track)
        attempt, _ = attempt_start(quiz=track.exam, learner=learner)
        drawn |= {q.template_slug for q in attempt.questions.all()}
    assert pair[0] not in drawn and pair[1] in drawn
