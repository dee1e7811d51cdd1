"""Certification exams: a cooldown between attempts, variants the learner has never been
shown, and nothing about correctness (no reveal, no new variant) before the finish."""

from __future__ import annotations

import hashlib
import hmac
import re
from datetime import timedelta

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from api_common.service_errors import Conflict
from assess import policy
from assess.models import Attempt, Question, Quiz
from assess.scoring import Rules
from assess.services import fresh_variants
from assess.services.attempts import attempt_finish, attempt_start, moment_words
from assess.services.fresh_variants import MAX_DRAWS, is_fresh, params_key
from assess.services.questions import (
    question_draw,
    question_from_variant,
    question_new_variant,
    question_seed,
)
from assess.services.reveals import part_reveal
from problems.engine.examples import is_example
from problems.engine.variants import Variant
from tests.assess.helpers import fake_seeds
from tests.factories import QuizFactory, UserFactory

pytestmark = pytest.mark.django_db

# The smallest variant space in the registry (8 parameter sets), and a larger one.
TINY = "param-count-dense"
SMALL = "roofline-ridge"
COOLDOWN = timedelta(days=7)


def certification(slots, **kw) -> Quiz:
    """A certification exam as the brief defines one: deferred feedback, a time limit,
    a pass mark, unlimited attempts, a cooldown, no course."""
    kw.setdefault("cooldown", COOLDOWN)
    return QuizFactory(
        mode=Quiz.Mode.CERTIFICATION,
        feedback=Quiz.Feedback.AFTER_ATTEMPT,
        time_limit=timedelta(hours=1),
        pass_mark=0.7,
        attempts_allowed=None,
        course=None,
        slots=slots,
        **kw,
    )


def pairs(qs) -> list[tuple[str, str]]:
    return [(q.template_slug, params_key(q.params)) for q in qs]


def seen_by(learner) -> set[tuple[str, str]]:
    return set(pairs(Question.objects.filter(attempt__learner=learner)))


def every_variant(slug: str) -> list[Variant]:
    """One variant per distinct parameter set the template draws (seeds 0..399)."""
    found: dict[str, Variant] = {}
    for seed in range(400):
        variant = Variant.from_seed(slug, seed)
        found.setdefault(params_key(variant.params.model_dump(mode="json")), variant)
    return list(found.values())


def plant(learner, variants: list[Variant]) -> None:
    """Questions the learner was shown in practice, with exactly these variants (the
    replaced ones inactive, as question_new_variant leaves them)."""
    attempt, _ = attempt_start(
        quiz=QuizFactory(slots=[[variants[0].template.slug]]), learner=learner
    )
    attempt.questions.all().delete()
    slot = attempt.quiz.slots.get()
    Question.objects.bulk_create(
        question_from_variant(
            attempt=attempt, slot=slot, order=1, variant_number=i, seed=i, variant=v
        )
        for i, v in enumerate(variants)
    )
    Question.objects.filter(attempt=attempt).exclude(variant_number=len(variants) - 1).update(
        active=False
    )


# ------------------------------------------------------------------------------ cooldown


def test_a_retake_within_the_cooldown_is_refused_naming_when_it_is_allowed(learner):
    quiz = certification([[SMALL]])
    t0 = timezone.now()
    first, _ = attempt_start(quiz=quiz, learner=learner, now=t0)
    attempt_finish(attempt=first, now=t0 + timedelta(minutes=20))
    allowed = t0 + timedelta(minutes=20) + COOLDOWN
    with pytest.raises(Conflict, match=re.escape(moment_words(allowed))):
        attempt_start(quiz=quiz, learner=learner, now=allowed - timedelta(seconds=1))
    assert quiz.attempts.count() == 1

    second, created = attempt_start(quiz=quiz, learner=learner, now=allowed)
    assert created and second.number == 2 and second.pk != first.pk


def test_an_expired_attempt_starts_the_cooldown_at_its_deadline(learner):
    quiz = certification([[SMALL]])
    t0 = timezone.now()
    first, _ = attempt_start(quiz=quiz, learner=learner, now=t0)
    # Never finished: the next start expires it, and it ended at its deadline.
    allowed = first.deadline + COOLDOWN
    with pytest.raises(Conflict, match=re.escape(moment_words(allowed))):
        attempt_start(quiz=quiz, learner=learner, now=t0 + timedelta(hours=2))
    _, created = attempt_start(quiz=quiz, learner=learner, now=allowed)
    assert created
    first.refresh_from_db()
    assert first.status == Attempt.Status.EXPIRED and first.finished_at == first.deadline


def test_an_open_attempt_resumes_whatever_the_cooldown(learner):
    quiz = certification([[SMALL]], cooldown=None)
    t0 = timezone.now()
    first, _ = attempt_start(quiz=quiz, learner=learner, now=t0)
    attempt_finish(attempt=first, now=t0 + timedelta(minutes=5))
    second, _ = attempt_start(quiz=quiz, learner=learner, now=t0 + timedelta(minutes=6))
    # The cooldown set afterwards would refuse a new attempt, not the open one.
    Quiz.objects.filter(pk=quiz.pk).update(cooldown=COOLDOWN)
    quiz.refresh_from_db()
    again, created = attempt_start(quiz=quiz, learner=learner, now=t0 + timedelta(minutes=7))
    assert not created and again.pk == second.pk
    attempt_finish(attempt=again, now=t0 + timedelta(minutes=8))
    with pytest.raises(Conflict, match="again from"):
        attempt_start(quiz=quiz, learner=learner, now=t0 + timedelta(minutes=9))


def test_the_cooldown_is_per_learner(learner, other_learner):
    quiz = certification([[SMALL]])
    t0 = timezone.now()
    first, _ = attempt_start(quiz=quiz, learner=learner, now=t0)
    attempt_finish(attempt=first, now=t0 + timedelta(minutes=5))
    _, created = attempt_start(quiz=quiz, learner=other_learner, now=t0 + timedelta(minutes=6))
    assert created


# ------------------------------------------------------------------------ fresh variants


def test_is_fresh_compares_parameters_canonically():
    seen = {("t", params_key({"a": 1, "b": [2.5, "x"]}))}
    assert not is_fresh("t", {"b": [2.5, "x"], "a": 1}, seen)
    assert is_fresh("t", {"a": 2, "b": [2.5, "x"]}, seen)
    assert is_fresh("u", {"a": 1, "b": [2.5, "x"]}, seen)


def test_is_fresh_reads_numbers_as_jsonb_returns_them():
    # jsonb hands 1e20 back as an integer and 8.0 as 8: still the same variant.
    seen = {("t", params_key({"tokens": 100000000000000000000, "gpus": 8, "on": True}))}
    assert not is_fresh("t", {"tokens": 1e20, "gpus": 8.0, "on": True}, seen)
    assert is_fresh("t", {"tokens": 1e20, "gpus": 8.0, "on": False}, seen)


def test_a_certification_shows_no_variant_the_learner_practised(learner):
    practice = QuizFactory(slots=[[TINY, SMALL]] * 6)
    attempt, _ = attempt_start(quiz=practice, learner=learner)
    for question in list(attempt.questions.all()):
        question_new_variant(attempt=attempt, question=question)
    homework = QuizFactory(mode=Quiz.Mode.HOMEWORK, slots=[[SMALL]] * 6)
    attempt_start(quiz=homework, learner=learner)
    before = seen_by(learner)
    assert len(before) >= 8

    cert, _ = attempt_start(quiz=certification([[TINY, SMALL]] * 4), learner=learner)
    drawn = pairs(cert.questions.all())
    assert len(drawn) == 4 and len(set(drawn)) == 4
    assert not set(drawn) & before
    for question in cert.questions.all():  # stored as drawn: it rebuilds from its seed
        rebuilt = Variant.from_seed(question.template_slug, question.seed)
        assert rebuilt.params.model_dump(mode="json") == question.params


def test_a_seen_draw_is_redrawn_with_the_next_draw_index(learner, monkeypatch):
    fake_seeds(monkeypatch, lambda variant_number, draw: draw)
    seen = Variant.from_seed(TINY, 0)  # what draw 0 of the certification gives
    plant(learner, [seen])
    seen_key = params_key(seen.params.model_dump(mode="json"))

    def drawn(d: int) -> int:  # the seed draw d gives: off the public example (fake_seeds)
        again = 0
        while is_example(Variant.from_seed(TINY, d + 7919 * again)):
            again += 1
        return d + 7919 * again

    expected = next(
        drawn(d)
        for d in range(1, MAX_DRAWS)
        if params_key(Variant.from_seed(TINY, drawn(d)).params.model_dump(mode="json")) != seen_key
    )

    cert, _ = attempt_start(quiz=certification([[TINY]]), learner=learner)
    question = cert.questions.get()
    assert question.seed == expected
    assert params_key(question.params) != seen_key


def test_no_two_questions_of_one_attempt_share_a_variant(learner, monkeypatch):
    # Every slot's draws give the same seeds: without the check all three would repeat.
    fake_seeds(monkeypatch, lambda variant_number, draw: draw)
    cert, _ = attempt_start(quiz=certification([[TINY]] * 3), learner=learner)
    drawn = pairs(cert.questions.order_by("order"))
    assert len(set(drawn)) == 3
    assert cert.questions.get(order=1).seed == 0


def test_draws_stop_at_the_bound(learner, monkeypatch):
    fake_seeds(monkeypatch, lambda variant_number, draw: 0)  # every draw is the seen one
    plant(learner, [Variant.from_seed(TINY, 0)])
    calls = []
    real = fresh_variants.question_draw
    monkeypatch.setattr(
        fresh_variants, "question_draw", lambda **kw: calls.append(kw["draw"]) or real(**kw)
    )
    quiz = certification([[TINY]])
    with pytest.raises(Conflict, match="No fresh variant is left for question 1"):
        attempt_start(quiz=quiz, learner=learner)
    assert calls == list(range(MAX_DRAWS))
    assert not quiz.attempts.exists()  # the refused start left nothing behind


def test_a_pool_the_learner_has_exhausted_is_refused(learner):
    variants = every_variant(TINY)
    assert len(variants) == 8
    plant(learner, variants)
    quiz = certification([[SMALL], [TINY]])
    with pytest.raises(Conflict, match="No fresh variant is left for question 2"):
        attempt_start(quiz=quiz, learner=learner)
    assert not quiz.attempts.exists()


def test_consecutive_certification_attempts_share_no_variant(learner):
    quiz = certification([[TINY]] * 3)
    t0 = timezone.now()
    first, _ = attempt_start(quiz=quiz, learner=learner, now=t0)
    attempt_finish(attempt=first, now=t0 + timedelta(minutes=30))
    t1 = t0 + timedelta(minutes=30) + COOLDOWN
    second, created = attempt_start(quiz=quiz, learner=learner, now=t1)
    assert created
    a, b = pairs(first.questions.all()), pairs(second.questions.all())
    assert len(set(a) | set(b)) == 6  # 6 of the template's 8 variants, none twice
    attempt_finish(attempt=second, now=t1 + timedelta(minutes=30))
    # Two variants are left for three questions.
    with pytest.raises(Conflict, match="No fresh variant is left"):
        attempt_start(quiz=quiz, learner=learner, now=t1 + timedelta(minutes=30) + COOLDOWN)


# ---------------------------------------------------------------- other modes, unchanged


def test_draw_zero_keeps_the_original_seed(settings):
    def hmac63(message: str) -> int:
        key = settings.SECRET_KEY.encode()
        digest = hmac.new(key, message.encode(), hashlib.sha256).digest()
        return int.from_bytes(digest[:8], "big") >> 1

    assert question_seed(attempt_id=7, slot_id=3, variant_number=2) == hmac63("7:3:2")
    assert question_seed(attempt_id=7, slot_id=3, variant_number=2, draw=0) == hmac63("7:3:2")
    assert question_seed(attempt_id=7, slot_id=3, variant_number=2, draw=5) == hmac63("7:3:2:5")


@pytest.mark.parametrize("mode", [Quiz.Mode.PRACTICE, Quiz.Mode.HOMEWORK, Quiz.Mode.EXAM])
def test_other_modes_keep_the_draw_zero_seed_even_for_seen_variants(learner, mode):
    plant(learner, every_variant(TINY))  # every variant seen: a certification would refuse
    attempt, _ = attempt_start(quiz=QuizFactory(mode=mode, slots=[[TINY]] * 3), learner=learner)
    for question in attempt.questions.select_related("slot"):
        # draw 0 (no redraw for seen variants); question_draw may still step away from
        # the template's public example, which depends on the ids the database hands out
        seed, _ = question_draw(
            attempt_id=attempt.pk, slot=question.slot, order=question.order, variant_number=0
        )
        assert question.seed == seed


# -------------------------------------------------------------------------- query count


def _start_queries(quiz, learner) -> list[str]:
    with CaptureQueriesContext(connection) as ctx:
        _, created = attempt_start(quiz=quiz, learner=learner)
    assert created
    return [q["sql"] for q in ctx.captured_queries]


def test_certification_start_queries_do_not_grow_with_the_learners_history():
    quiz = certification([[TINY, SMALL]] * 3)
    few, many = UserFactory(username="few"), UserFactory(username="many")
    plant(few, every_variant(SMALL)[:2])
    plant(many, every_variant(SMALL)[:30])
    # History outside the quiz's templates is not even read.
    attempt_start(quiz=QuizFactory(slots=[["weights-memory"]] * 10), learner=many)
    assert Question.objects.filter(attempt__learner=many).count() == 40

    small, large = _start_queries(quiz, few), _start_queries(quiz, many)
    assert len(small) == len(large)
    seen_reads = [sql for sql in large if sql.startswith("SELECT") and "assess_question" in sql]
    assert len(seen_reads) == 1


# ------------------------------------------------------------------- nothing shows early


def test_a_certification_reveals_nothing_before_its_finish(learner):
    quiz = certification([[SMALL]])
    t0 = timezone.now()
    attempt, _ = attempt_start(quiz=quiz, learner=learner, now=t0)
    question = attempt.questions.get()
    part = question.answers[0]["name"]
    with pytest.raises(Conflict):
        part_reveal(attempt=attempt, question=question, part=part, now=t0)
    with pytest.raises(Conflict):
        question_new_variant(attempt=attempt, question=question, now=t0)
    assert attempt.questions.count() == 1 and not question.reveals.exists()

    def seen(now):
        over = policy.attempt_over(attempt=attempt, now=now)
        return policy.question_policy(
            parts=question.answers,
            tries={},
            revealed=(),
            rules=Rules.of(quiz),
            over=over,
            grades=policy.grades_visible(attempt=attempt, now=now),
            learner=True,
        )

    during = seen(t0 + timedelta(minutes=1))
    assert not during.show_score and not during.show_solution and not during.can_reveal
    assert not any(p.show_grades or p.show_answer for p in during.parts.values())

    attempt = attempt_finish(attempt=attempt, now=t0 + timedelta(minutes=2))
    after = seen(t0 + timedelta(minutes=2))
    assert after.show_score and after.show_solution


@pytest.mark.parametrize("mode", [Quiz.Mode.EXAM, Quiz.Mode.CERTIFICATION])
def test_the_database_refuses_an_exam_that_grades_as_it_goes(mode):
    # The builder refuses it; the constraint holds for the admin and raw data too.
    with pytest.raises(IntegrityError), transaction.atomic():
        Quiz.objects.create(title="leaky", mode=mode, feedback=Quiz.Feedback.IMMEDIATELY)
    Quiz.objects.create(title="fine", mode=mode, feedback=Quiz.Feedback.AFTER_ATTEMPT)
