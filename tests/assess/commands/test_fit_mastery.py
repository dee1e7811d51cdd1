"""manage.py fit_mastery on a small synthetic response log."""

from __future__ import annotations

import json
from io import StringIO

import numpy as np
import pytest
from django.core.management import call_command

from assess.mastery import bkt
from assess.models import Quiz
from assess.services.attempts import attempt_start
from assess.services.responses import response_submit
from tests.assess.helpers import correct_text, wrong_text
from tests.factories import QuizFactory, UserFactory

pytestmark = pytest.mark.django_db

N_LEARNERS, N_STEPS = 8, 5


@pytest.fixture
def log():
    """Each learner answers N_STEPS gb-gib questions once, as BKT simulates them, and
    retries the first one: a retry is not a first try and must not be fitted."""
    truth = bkt.BKTParams(p_init=0.3, p_learn=0.3, p_slip=0.1, p_guess=0.1)
    sequences = bkt.simulate(np.random.default_rng(7), truth, N_LEARNERS, N_STEPS)
    quiz = QuizFactory(mode=Quiz.Mode.HOMEWORK, slots=[["gb-gib"]] * N_STEPS)
    for i, sequence in enumerate(sequences):
        attempt, _ = attempt_start(quiz=quiz, learner=UserFactory(username=f"sim{i}"))
        questions = list(attempt.questions.order_by("order"))
        for question, ok in zip(questions, sequence, strict=True):
            part = question.answers[0]
            response_submit(
                attempt=attempt,
                question=question,
                part=part["name"],
                text=correct_text(part) if ok else wrong_text(part),
                idempotency_key=f"q{question.pk}",
            )
        part = questions[0].answers[0]
        response_submit(
            attempt=attempt,
            question=questions[0],
            part=part["name"],
            text=correct_text(part),
            idempotency_key="retry",
        )
    return sequences


def test_json(log):
    out = StringIO()
    call_command("fit_mastery", "--min-responses", "10", "--json", stdout=out)
    doc = json.loads(out.getvalue())
    [row] = doc["fitted"]
    assert row["skill"] == "units-gb-gib"
    assert (row["learners"], row["responses"]) == (N_LEARNERS, N_LEARNERS * N_STEPS)
    expected = bkt.fit(log)
    for name in ("p_init", "p_learn", "p_slip", "p_guess"):
        assert row[name] == pytest.approx(getattr(expected.params, name))
    assert row["log_likelihood"] == pytest.approx(expected.log_likelihood)
    assert doc["skipped"] == []


def test_table_and_skipping(log):
    out = StringIO()
    call_command("fit_mastery", stdout=out)  # default minimum 20 < 40: fitted
    text = out.getvalue()
    assert text.splitlines()[0].split()[:3] == ["skill", "learners", "responses"]
    assert "units-gb-gib" in text
    out = StringIO()
    call_command("fit_mastery", "--min-responses", "1000", stdout=out)
    assert "Skipped, fewer than 1000 first tries: units-gb-gib (40)" in out.getvalue()
