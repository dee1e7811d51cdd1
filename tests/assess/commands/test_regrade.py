"""manage.py regrade: regrade from stored parameters, report and store changed scores."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from assess.models import Attempt, Question, Response
from assess.services.attempts import attempt_finish, attempt_start
from assess.services.responses import response_submit
from tests.assess.helpers import correct_text
from tests.factories import QuizFactory

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = StringIO()
    call_command("regrade", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


@pytest.fixture
def graded(learner):
    """A finished attempt with one right answer to weights-memory, then the stored
    parameters edited (as if the recorded variant differed from what was solved)."""
    attempt, _ = attempt_start(quiz=QuizFactory(slots=[["weights-memory"]]), learner=learner)
    question = attempt.questions.get()
    part = question.answers[0]
    result = response_submit(
        attempt=attempt,
        question=question,
        part=part["name"],
        text=correct_text(part),
        idempotency_key="k",
    )
    attempt_finish(attempt=attempt)
    question.params = {**question.params, "n_params": question.params["n_params"] * 3}
    question.save(update_fields=["params"])
    return attempt, question, result.response


def test_dry_run_reports_and_stores_nothing(graded):
    attempt, question, response = graded
    before = Question.objects.get(pk=question.pk).answers
    out = run("--template", "weights-memory", "--dry-run")
    assert f"response {response.pk} (question {question.pk}, part weights): 1 -> 0" in out
    assert f"attempt {attempt.pk}: score 1 -> 0" in out
    assert "dry run" in out
    assert Response.objects.get(pk=response.pk).score == 1.0
    assert Question.objects.get(pk=question.pk).answers == before
    assert Attempt.objects.get(pk=attempt.pk).score == 1.0


def test_regrade_stores_new_scores_answers_and_attempt_score(graded):
    attempt, question, response = graded
    old_value = question.answers[0]["value"]
    out = run("--template", "weights-memory")
    assert f"response {response.pk} (question {question.pk}, part weights): 1 -> 0" in out
    stored = Response.objects.get(pk=response.pk)
    assert (stored.score, stored.correct) == (0.0, False)
    assert Question.objects.get(pk=question.pk).answers[0]["value"] == pytest.approx(3 * old_value)
    assert Attempt.objects.get(pk=attempt.pk).score == 0.0
    # Nothing left to change.
    assert "0 scores changed" in run("--template", "weights-memory")


def test_other_templates_untouched(graded):
    assert "0 questions" in run("--template", "gb-gib")


def test_unknown_template():
    with pytest.raises(CommandError):
        run("--template", "no-such-template")
