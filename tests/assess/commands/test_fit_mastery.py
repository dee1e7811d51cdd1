"""manage.py fit_mastery on a small synthetic response log."""

from __future__ import annotations

import json
from io import StringIO

import numpy as np
import pytest
from django.core.management import call_command

from api_common.service_errors import Conflict
from assess.mastery import bkt
from assess.models import Quiz, Response
from assess.services.attempts import attempt_finish, attempt_start
from assess.services.responses import response_submit
from tests.assess.helpers import correct_text, wrong_text
from tests.factories import QuizFactory, UserFactory

pytestmark = pytest.mark.django_db

N_LEARNERS, N_STEPS = 8, 5


@pytest.fixture
def log():
    """Each learner answers N_STEPS gb-gib questions once, as BKT simulates them, retries
    the first one and answers an exam still running: neither is evidence, and neither
    must be fitted."""
    truth = bkt.BKTParams(p_init=0.3, p_learn=0.3, p_slip=0.1, p_guess=0.1)
    sequences = bkt.simulate(np.random.default_rng(7), truth, N_LEARNERS, N_STEPS)
    quiz = QuizFactory(mode=Quiz.Mode.HOMEWORK, tries_per_part=3, slots=[["gb-gib"]] * N_STEPS)
    exam = QuizFactory(mode=Quiz.Mode.EXAM, slots=[["gb-gib"]])
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
        # A retry follows the feedback: stored when the first try was wrong (not
        # evidence), refused when it was right (the part is solved).
        part = questions[0].answers[0]
        retry = {
            "attempt": attempt,
            "question": questions[0],
            "part": part["name"],
            "text": correct_text(part),
            "idempotency_key": "retry",
        }
        if sequence[0]:
            with pytest.raises(Conflict):
                response_submit(**retry)
        else:
            assert not response_submit(**retry).response.evidence
        # An exam still running holds its answers back: they are no evidence yet.
        exam_attempt, _ = attempt_start(quiz=exam, learner=attempt.learner)
        question = exam_attempt.questions.get()
        response_submit(
            attempt=exam_attempt,
            question=question,
            part=question.answers[0]["name"],
            text=correct_text(question.answers[0]),
            idempotency_key="exam",
        )
    assert not all(sequence[0] for sequence in sequences)  # some retries were stored
    assert Response.objects.count() > N_LEARNERS * N_STEPS + N_LEARNERS
    assert Response.objects.filter(evidence=True).count() == N_LEARNERS * N_STEPS
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
    assert "Skipped, fewer than 1000 evidence answers: units-gb-gib (40)" in out.getvalue()


def test_finished_exam_answers_are_evidence_and_fitted(log):
    """Once an exam is finished its counted answers reach mastery, and the fit."""
    for attempt in Quiz.objects.get(mode=Quiz.Mode.EXAM).attempts.all():
        attempt_finish(attempt=attempt)
    out = StringIO()
    call_command("fit_mastery", "--min-responses", "10", "--json", stdout=out)
    [row] = json.loads(out.getvalue())["fitted"]
    assert row["responses"] == N_LEARNERS * (N_STEPS + 1)
