"""Statements and worked solutions also as Markdown with LaTeX, for clients that typeset
maths themselves: `statement_markdown` beside `statement_html` in every question payload
(start, practice, new variant, review, answer result), `solution_markdown` beside
`solution_html` wherever the solution shows (and null with it while the feedback policy
hides it; the hidden-answer checks of test_feedback_policy.py cover that). The two
renderings say the same thing: the same numbers, in the same quantities."""

from __future__ import annotations

import html
import importlib
import re
from collections import Counter

import pytest
from django.apps import apps

from assess.models import Question, Quiz
from assess.services.attempts import attempt_start
from problems.engine import registry
from problems.engine.variants import Variant
from tests.assess.helpers import answer, parts_of
from tests.factories import LessonFactory, QuizFactory, UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.assess.urls")]

_TAG = re.compile(r"<[^>]+>")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_THOUSANDS = re.compile(r"(?<=\d)\s*,\s*(?=\d{3}(?!\d))")
_LIST_ITEM = re.compile(r"(?m)^\s*\d+\.\s+")  # "1. " of a Markdown list: <ol> in HTML


def numbers_in_markdown(text: str) -> Counter:
    text = _LIST_ITEM.sub("", text).replace("{,}", ",")
    return Counter(_NUMBER.findall(_THOUSANDS.sub("", text)))


def numbers_in_html(text: str) -> Counter:
    text = html.unescape(_TAG.sub(" ", text))  # MathML splits 10^9 into <mn>10</mn><mn>9</mn>
    return Counter(_NUMBER.findall(_THOUSANDS.sub("", text)))


def assert_same_statement(node: dict) -> None:
    """The payload's statement as stored, in both renderings, with the same numbers."""
    question = Question.objects.get(pk=node["id"])
    variant = Variant.from_params(question.template_slug, question.params)
    assert node["statement_markdown"] == question.statement_markdown
    assert node["statement_markdown"] == variant.statement_markdown()
    assert node["statement_html"] == question.statement_html
    numbers = numbers_in_markdown(node["statement_markdown"])
    assert numbers and numbers == numbers_in_html(node["statement_html"])
    assert "<" not in node["statement_markdown"] or "`" in node["statement_markdown"]


def test_every_template_states_the_same_numbers_in_both(api):
    """One quiz drawing every template: each question of the start payload and of the
    review carries both renderings, as stored when the question was built."""
    slugs = [t.slug for t in registry.all_templates()]
    quiz = QuizFactory(slots=[[slug] for slug in slugs])
    start = api.post(f"/api/quizzes/{quiz.pk}/attempts/").json()
    assert len(start["questions"]) == len(slugs)
    for question in start["questions"]:
        assert_same_statement(question)
    review = api.get(f"/api/attempts/{start['id']}/").json()
    for question in review["questions"]:
        assert_same_statement(question)


def test_answer_result_new_variant_and_practice_carry_markdown(api):
    quiz = QuizFactory(mode=Quiz.Mode.PRACTICE, slots=[["kv-cache-total"]])
    start = api.post(f"/api/quizzes/{quiz.pk}/attempts/").json()
    qid = start["questions"][0]["id"]
    part = parts_of(qid)[0]

    wrong = answer(api, start["id"], qid, part, correct=False).json()["question_state"]
    assert_same_statement(wrong)
    assert (wrong["solution_html"], wrong["solution_markdown"]) == (None, None)

    # The solution shows once every part is closed: answer the other parts (kv-cache-total
    # also asks whether the cache fits) right, the first part last.
    for other in parts_of(qid)[1:]:
        half = answer(api, start["id"], qid, other).json()["question_state"]
        assert (half["solution_html"], half["solution_markdown"]) == (None, None)
    right = answer(api, start["id"], qid, part).json()["question_state"]
    assert_same_statement(right)
    question = Question.objects.get(pk=qid)
    variant = Variant.from_params(question.template_slug, question.params)
    assert right["solution_markdown"] == variant.solution_markdown()
    assert right["solution_html"] == variant.solution_html()
    numbers = numbers_in_markdown(right["solution_markdown"])
    assert numbers and numbers == numbers_in_html(right["solution_html"])

    fresh = api.post(f"/api/attempts/{start['id']}/questions/{qid}/new-variant/").json()
    assert_same_statement(fresh)

    LessonFactory(slug="memory-math", templates=["gb-gib"])
    practice = api.post("/api/lessons/memory-math/practice/").json()
    assert_same_statement(practice["question"])


def test_an_exam_shows_both_solutions_at_its_release_and_neither_before(api):
    quiz = QuizFactory(mode=Quiz.Mode.EXAM, feedback="after_attempt", slots=[["gb-gib"]])
    start = api.post(f"/api/quizzes/{quiz.pk}/attempts/").json()
    qid = start["questions"][0]["id"]
    result = answer(api, start["id"], qid, parts_of(qid)[0]).json()["question_state"]
    assert (result["solution_html"], result["solution_markdown"]) == (None, None)
    assert_same_statement(result)
    done = api.post(f"/api/attempts/{start['id']}/finish/").json()
    [question] = done["questions"]
    variant = Variant.from_params("gb-gib", Question.objects.get(pk=qid).params)
    assert question["solution_markdown"] == variant.solution_markdown()
    assert question["solution_html"] == variant.solution_html()


# ------------------------------------------------------------------------- the backfill


def test_the_migration_backfills_stored_questions():
    """Questions stored before the field: regenerated from their template and parameters
    (the engine is deterministic); "" where the template is gone."""
    migration = importlib.import_module("assess.migrations.0003_question_statement_markdown")
    quiz = QuizFactory(slots=[["weights-memory"], ["gb-gib"]])
    attempt, _ = attempt_start(quiz=quiz, learner=UserFactory())
    kept, gone = attempt.questions.order_by("order")
    expected = kept.statement_markdown
    Question.objects.filter(pk=kept.pk).update(statement_markdown="")
    Question.objects.filter(pk=gone.pk).update(statement_markdown="", template_slug="retired")

    migration.backfill(apps, None)

    kept.refresh_from_db()
    gone.refresh_from_db()
    assert kept.statement_markdown == expected and expected
    assert gone.statement_markdown == ""
