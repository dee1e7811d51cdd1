"""Server-side seeds, template draws, and stored variants that rebuild exactly."""

from __future__ import annotations

import hashlib
import hmac
import random

import pytest
from django.test import override_settings

from api_common.service_errors import Conflict
from assess.models import Quiz
from assess.services.attempts import attempt_start
from assess.services.questions import (
    EXAMPLE_REDRAWS,
    question_build,
    question_new_variant,
    question_seed,
)
from problems.engine import registry
from problems.engine.examples import is_example
from problems.engine.variants import Variant
from tests.factories import QuizFactory


def test_seed_is_an_hmac_of_attempt_slot_and_variant(settings):
    seed = question_seed(attempt_id=7, slot_id=3, variant_number=2)
    digest = hmac.new(settings.SECRET_KEY.encode(), b"7:3:2", hashlib.sha256).digest()
    assert seed == int.from_bytes(digest[:8], "big") >> 1
    assert 0 <= seed < 2**63
    assert seed != question_seed(attempt_id=7, slot_id=3, variant_number=3)
    with override_settings(SECRET_KEY="another-secret-key-" * 3):
        assert seed != question_seed(attempt_id=7, slot_id=3, variant_number=2)


def _first_seed_off_the_examples(attempt_id: int, slot_id: int, pool: list[str]) -> int:
    """The HMAC seed of the attempt, slot and variant 0, or, when its variant gives a
    public example away (problems.engine.examples: a printed answer too), the first of
    the redraw seeds whose variant does not."""
    for again in range(EXAMPLE_REDRAWS):
        seed = question_seed(attempt_id=attempt_id, slot_id=slot_id, variant_number=0, again=again)
        if not is_example(Variant.from_seed(random.Random(seed).choice(pool), seed)):
            return seed
    raise AssertionError("no seed off the examples")


@pytest.mark.django_db
def test_template_drawn_from_the_pool_with_the_seed(learner):
    pool = ["gb-gib", "weights-memory", "kv-cache-total"]
    quiz = QuizFactory(slots=[pool] * 6)
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    for question in attempt.questions.all():
        assert question.template_slug == random.Random(question.seed).choice(pool)
        assert question.seed == _first_seed_off_the_examples(attempt.pk, question.slot_id, pool)
        rebuilt = Variant.from_seed(question.template_slug, question.seed)
        assert rebuilt.params.model_dump(mode="json") == question.params


@pytest.mark.django_db
@pytest.mark.parametrize("slug", registry.slugs())
def test_every_template_rebuilds_from_its_stored_json(learner, slug):
    """What regrading relies on: stored params give back the same answers."""
    quiz = QuizFactory(slots=[[slug]])
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    question = attempt.questions.get()
    question.refresh_from_db()  # through the JSON column
    again = question_build(
        attempt=attempt, slot=question.slot, order=1, variant_number=0, template_slug=slug
    )
    assert again.answers == question.answers
    variant = Variant.from_params(slug, question.params)
    assert [p.name for p in variant.parts.values()] == [p["name"] for p in question.answers]


@pytest.mark.django_db
def test_new_variant_only_in_practice(learner):
    exam = QuizFactory(mode=Quiz.Mode.EXAM, slots=[["gb-gib"]])
    attempt, _ = attempt_start(quiz=exam, learner=learner)
    with pytest.raises(Conflict):
        question_new_variant(attempt=attempt, question=attempt.questions.get())


@pytest.mark.django_db
def test_new_variants_number_up_and_replace(learner):
    attempt, _ = attempt_start(quiz=QuizFactory(slots=[["gb-gib"]]), learner=learner)
    first = attempt.questions.get()
    second = question_new_variant(attempt=attempt, question=first)
    third = question_new_variant(attempt=attempt, question=second)
    assert [second.variant_number, third.variant_number] == [1, 2]
    assert list(attempt.questions.filter(active=True)) == [third]
    with pytest.raises(Conflict):
        question_new_variant(attempt=attempt, question=first)


@pytest.mark.django_db
def test_a_template_removed_from_the_registry_is_skipped(learner):
    quiz = QuizFactory(slots=[["gb-gib"]] * 4)
    quiz.slots.update(templates=["removed-template", "gb-gib"])  # bypassing validation
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    assert {q.template_slug for q in attempt.questions.all()} == {"gb-gib"}

    gone = QuizFactory(slots=[["gb-gib"]])
    gone.slots.update(templates=["removed-template"])
    with pytest.raises(Conflict, match="no template"):
        attempt_start(quiz=gone, learner=learner)
    assert not gone.attempts.exists()
