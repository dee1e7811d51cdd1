"""Variants drawn ahead of the starts (assess.services.drawn_variants): a start takes one
per slot, each once; an empty or stale pool draws live; the pool is filled to what the
course's learners need, by the publish's task and the beat's top-up."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from assess.models import Attempt, DrawnVariant, Quiz
from assess.services.attempts import attempt_finish, attempt_start
from assess.services.drawn_variants import (
    MARGIN,
    drawn_wanted,
    pools_prune,
    pools_top_up,
    variants_predraw,
)
from assess.services.questions import question_draw
from assess.services.quizzes.lifecycle import quiz_publish
from problems.engine.variants import Variant
from tests.assess.helpers import answer_question
from tests.factories import EnrolmentFactory, QuizFactory, UserFactory

pytestmark = pytest.mark.django_db

TWO = [["weights-memory", "kv-cache-total"], ["gb-gib"]]


def exam(**fields) -> Quiz:
    return QuizFactory(mode=Quiz.Mode.EXAM, slots=fields.pop("slots", TWO), **fields)


def waiting(quiz: Quiz) -> dict[int, list[int]]:
    """{slot order: the numbers waiting in its pool}"""
    found: dict[int, list[int]] = {s.order: [] for s in quiz.slots.all()}
    for order, number in DrawnVariant.objects.filter(slot__quiz=quiz).values_list(
        "slot__order", "number"
    ):
        found[order].append(number)
    return {order: sorted(numbers) for order, numbers in found.items()}


def test_a_start_takes_the_first_waiting_variant_of_each_slot_once(learner, other_learner):
    quiz = exam()
    assert variants_predraw(quiz=quiz, wanted=3) == 6
    first = {(r.slot_id, r.number): r for r in DrawnVariant.objects.filter(slot__quiz=quiz)}

    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    other, _ = attempt_start(quiz=quiz, learner=other_learner)

    for started, number in ((attempt, 1), (other, 2)):
        for question in started.questions.order_by("order"):
            drawn = first[(question.slot_id, number)]
            assert (question.seed, question.template_slug, question.params) == (
                drawn.seed,
                drawn.template_slug,
                drawn.params,
            )
            assert question.statement_html == drawn.statement_html
            assert question.answers == drawn.answers
    assert waiting(quiz) == {1: [3], 2: [3]}


def test_a_drawn_question_replays_from_its_seed_and_grades_as_a_live_one(learner):
    quiz = exam(slots=[["weights-memory"]])
    variants_predraw(quiz=quiz, wanted=1)
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    question = attempt.questions.get()
    assert DrawnVariant.objects.count() == 0
    # Regrading rebuilds a question from its template and seed: the pool's seed replays.
    replay = Variant.from_seed(question.template_slug, question.seed)
    assert replay.params.model_dump(mode="json") == question.params
    answer_question(attempt, question)
    assert attempt_finish(attempt=attempt).score == 1.0


def live_seed(attempt, slot) -> int:
    """The seed a live draw gives the attempt's question in `slot`: its first seed, or the
    next when that one lands on the template's public example (question_draw)."""
    seed, _ = question_draw(attempt_id=attempt.pk, slot=slot, order=1, variant_number=0)
    return seed


def test_an_empty_pool_draws_live_as_before(learner):
    quiz = exam(slots=[["weights-memory"]])
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    question = attempt.questions.get()
    assert question.seed == live_seed(attempt, quiz.slots.get())


def test_a_variant_drawn_from_an_older_template_is_not_handed_out(learner):
    quiz = exam(slots=[["weights-memory"]])
    variants_predraw(quiz=quiz, wanted=2)
    DrawnVariant.objects.filter(number=1).update(template_version=999)
    attempt, _ = attempt_start(quiz=quiz, learner=learner)
    question = attempt.questions.get()
    assert question.seed == live_seed(attempt, question.slot)
    assert waiting(quiz) == {1: [2]}  # the stale one is gone, the next one waits


def test_a_homework_question_counts_its_hints_and_an_exam_s_none(learner):
    homework = QuizFactory(mode=Quiz.Mode.HOMEWORK, slots=[["weights-memory"]])
    variants_predraw(quiz=homework, wanted=1)
    drawn = DrawnVariant.objects.get()
    question = attempt_start(quiz=homework, learner=learner)[0].questions.get()
    assert question.seed == drawn.seed and question.hint_total == drawn.hint_count > 0

    quiz = exam(slots=[["weights-memory"]])
    variants_predraw(quiz=quiz, wanted=1)
    assert attempt_start(quiz=quiz, learner=learner)[0].questions.get().hint_total is None


def test_practice_certification_and_drafts_keep_no_pool():
    for quiz in (
        QuizFactory(mode=Quiz.Mode.PRACTICE),
        QuizFactory(mode=Quiz.Mode.CERTIFICATION),
        exam(status=Quiz.Status.DRAFT),
    ):
        assert variants_predraw(quiz=quiz, wanted=5) == 0
    assert DrawnVariant.objects.count() == 0


def test_the_fill_tops_up_to_what_is_wanted_and_a_second_run_draws_nothing(learner):
    quiz = exam()
    assert variants_predraw(quiz=quiz, wanted=2) == 4
    assert variants_predraw(quiz=quiz, wanted=2) == 0
    attempt_start(quiz=quiz, learner=learner)
    assert variants_predraw(quiz=quiz, wanted=2) == 2
    assert waiting(quiz) == {1: [2, 3], 2: [2, 3]}
    assert variants_predraw(quiz=quiz, wanted=9, budget=5) == 5  # the budget bounds a run,
    assert waiting(quiz) == {1: [2, 3, 4, 5], 2: [2, 3, 4, 5, 6]}  # shared by the slots


def test_a_pool_that_ran_dry_draws_new_numbers_never_a_seed_handed_out_before(learner):
    quiz = exam(slots=[["weights-memory"]])
    variants_predraw(quiz=quiz, wanted=1)
    first = attempt_start(quiz=quiz, learner=learner)[0].questions.get()
    assert waiting(quiz) == {1: []}
    variants_predraw(quiz=quiz, wanted=2)
    assert waiting(quiz) == {1: [2, 3]}
    assert first.seed not in DrawnVariant.objects.values_list("seed", flat=True)


def test_the_pool_is_sized_for_the_learners_who_have_not_started(course, learner):
    quiz = exam(course=course)
    for user in (learner, *UserFactory.create_batch(4)):
        EnrolmentFactory(user=user, course=course)
    assert drawn_wanted(quiz) == 5 + MARGIN
    attempt_start(quiz=quiz, learner=learner)
    assert drawn_wanted(quiz) == 4 + MARGIN


def test_the_beat_fills_the_quizzes_opening_about_now_only():
    now = timezone.now()
    soon = exam(opens_at=now + timedelta(minutes=30))
    just_opened = exam(opens_at=now - timedelta(minutes=30))
    homework = QuizFactory(
        mode=Quiz.Mode.HOMEWORK, opens_at=now + timedelta(minutes=5), slots=[["gb-gib"]]
    )
    later = exam(opens_at=now + timedelta(hours=3))
    long_open = exam(opens_at=now - timedelta(hours=3))
    undated = exam()  # opened when published: its publish's task fills it
    closing = exam(opens_at=now - timedelta(minutes=10), closes_at=now - timedelta(seconds=1))
    draft = exam(opens_at=now, status=Quiz.Status.DRAFT)
    practice = QuizFactory(opens_at=now)
    assert pools_top_up(now=now) == 5 * MARGIN
    filled = {q: len(waiting(q)[1]) for q in (soon, just_opened, homework, later, long_open)}
    assert filled == {soon: MARGIN, just_opened: MARGIN, homework: MARGIN, later: 0, long_open: 0}
    for q in (undated, closing, draft, practice):
        assert waiting(q)[1] == []


def test_the_beat_drops_the_pools_no_start_can_take():
    now = timezone.now()
    kept, closed, extended, unpublished = exam(), exam(), exam(), exam()
    for q in (kept, closed, extended, unpublished):
        variants_predraw(quiz=q, wanted=2)
    Quiz.objects.filter(pk__in=[closed.pk, extended.pk]).update(closes_at=now)
    Quiz.objects.filter(pk=extended.pk).update(extended_until=now + timedelta(hours=1))
    Quiz.objects.filter(pk=unpublished.pk).update(status=Quiz.Status.DRAFT)
    assert pools_prune(now=now) == 8
    assert waiting(kept) == waiting(extended) == {1: [1, 2], 2: [1, 2]}
    assert waiting(closed) == waiting(unpublished) == {1: [], 2: []}


def test_the_publish_s_task_fills_batch_after_batch_until_every_slot_has_its_share(
    monkeypatch,
):
    from assess import tasks
    from assess.services import drawn_variants

    monkeypatch.setattr(drawn_variants, "BATCH", 7)  # 2 slots x 20 wanted: 6 runs of 7
    quiz = exam()
    assert tasks.predraw_variants(quiz.pk) == 2 * MARGIN
    assert waiting(quiz) == {1: list(range(1, MARGIN + 1)), 2: list(range(1, MARGIN + 1))}
    assert tasks.predraw_variants(quiz.pk) == 0
    assert tasks.predraw_variants(10**9) == 0  # a quiz deleted since: nothing to do


def test_publishing_queues_the_first_fill_when_a_worker_draws_it(
    settings, staff, django_capture_on_commit_callbacks
):
    settings.PREDRAW_VARIANTS = True
    quiz = exam(status=Quiz.Status.DRAFT)
    with django_capture_on_commit_callbacks(execute=True):
        quiz_publish(user=staff, quiz=quiz)
    assert waiting(quiz) == {1: list(range(1, MARGIN + 1)), 2: list(range(1, MARGIN + 1))}

    settings.PREDRAW_VARIANTS = False  # in-process: the publish does not wait for drawing
    other = exam(status=Quiz.Status.DRAFT)
    with django_capture_on_commit_callbacks(execute=True):
        quiz_publish(user=staff, quiz=other)
    assert waiting(other) == {1: [], 2: []}


def test_a_start_from_the_pool_costs_the_same_queries_whatever_the_slots(learner, other_learner):
    def queries(quiz: Quiz, user) -> int:
        variants_predraw(quiz=quiz, wanted=1)
        with CaptureQueriesContext(connection) as ctx:
            attempt, _ = attempt_start(quiz=quiz, learner=user)
        assert Attempt.objects.get(pk=attempt.pk).questions.count() == quiz.slots.count()
        return len(ctx.captured_queries)

    two = queries(exam(), learner)
    five = queries(exam(slots=[["gb-gib"]] * 5), other_learner)
    assert two == five
    assert DrawnVariant.objects.count() == 0
