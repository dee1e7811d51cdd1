"""Item analysis aggregated in the database (assess.analysis.item_analysis) gives what
reading every question and response into Python gave (the reference below, the code it
replaced), on a quiz with retries, ties in time, open attempts, an inactive question,
unscored attempts and answers with and without a time or a misconception."""

from __future__ import annotations

import random
import statistics
from collections import Counter, defaultdict
from datetime import timedelta

import pytest
from django.db.models import Q
from django.utils import timezone

from assess.analysis import TOP_MISCONCEPTIONS, item_analysis, point_biserial
from assess.models import Attempt, Question, Response
from assess.services.attempts import attempt_start
from tests.factories import QuizFactory, UserFactory

pytestmark = pytest.mark.django_db


def reference(quiz):
    """The Python item analysis this module's subject replaced, kept as the oracle."""
    closed = ~Q(attempt__status=Attempt.Status.OPEN)
    questions = list(
        Question.objects.filter(closed, attempt__quiz=quiz).values(
            "id", "template_slug", "active", "answers", "attempt__score"
        )
    )
    responses = list(
        Response.objects.filter(closed, attempt__quiz=quiz)
        .order_by("created_at", "id")
        .values("question_id", "part", "correct", "misconception", "time_spent_ms")
    )
    slug_of = {q["id"]: q["template_slug"] for q in questions}
    by_template, latest = defaultdict(list), {}
    for r in responses:
        by_template[slug_of[r["question_id"]]].append(r)
        latest[(r["question_id"], r["part"])] = r["correct"]
    sample = defaultdict(lambda: ([], []))
    for q in questions:
        if q["active"] and q["attempt__score"] is not None:
            xs, ys = sample[q["template_slug"]]
            xs.append(all(latest.get((q["id"], p["name"]), False) for p in q["answers"]))
            ys.append(q["attempt__score"])
    out = []
    for slug in sorted({q["template_slug"] for q in questions}):
        rows = by_template.get(slug, [])
        codes = Counter(r["misconception"] for r in rows if r["misconception"])
        times = [r["time_spent_ms"] for r in rows if r["time_spent_ms"] is not None]
        xs, ys = sample.get(slug, ([], []))
        out.append((slug, len(rows),
                    sum(r["correct"] for r in rows) / len(rows) if rows else None, len(xs),
                    point_biserial(xs, ys),
                    sorted(codes.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_MISCONCEPTIONS],
                    statistics.median(times) if times else None))  # fmt: skip
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_database_sums_give_the_reference_analysis(seed):
    rng = random.Random(seed)
    quiz = QuizFactory(
        slots=[["weights-memory"], ["kv-cache-per-token"], ["littles-law"]], attempts_allowed=None
    )
    start = timezone.now() - timedelta(days=1)
    for i in range(14):
        attempt, _ = attempt_start(quiz=quiz, learner=UserFactory(username=f"a{seed}-{i}"))
        for question in attempt.questions.all():
            for part in question.answers:
                at = start + timedelta(seconds=rng.randrange(50))  # ties in time, by id then
                for k in range(rng.randrange(4)):  # 0 to 3 tries at the part
                    Response.objects.create(
                        attempt=attempt, question=question, part=part["name"], raw="1",
                        parsed_unit="", valid=True, correct=rng.random() < 0.5, score=0.0,
                        misconception=rng.choice(["", "", "units-slip", "off-by-1000"]),
                        feedback="", created_at=at + timedelta(seconds=rng.choice([0, 1])),
                        time_spent_ms=rng.choice([None, rng.randrange(100, 90_000)]),
                        idempotency_key=f"{question.pk}-{part['name']}-{k}",
                    )  # fmt: skip
        if i == 3:
            continue  # left open: not counted
        if i == 5:
            attempt.questions.filter(order=2).update(active=False)  # replaced by staff
        score = None if i == 7 else rng.random()  # an attempt with no score yet
        status = rng.choice([Attempt.Status.FINISHED, Attempt.Status.EXPIRED])
        Attempt.objects.filter(pk=attempt.pk).update(status=status, score=score)
    found = [
        (i.template, i.responses, i.proportion_correct, i.questions, i.discrimination,
         i.misconceptions, i.median_time_spent_ms)
        for i in item_analysis(quiz=quiz)
    ]  # fmt: skip
    expected = reference(quiz)
    assert [f[0] for f in found] == [e[0] for e in expected] and len(found) == 3
    assert any(f[4] is not None for f in found)  # some item separates: the sums are used
    for got, want in zip(found, expected, strict=True):
        assert got[1:4] == want[1:4] and got[5:] == want[5:], got[0]
        assert got[4] == pytest.approx(want[4], abs=1e-9) if want[4] is not None else got[4] is None


def test_a_quiz_with_no_closed_attempt_has_no_items():
    quiz = QuizFactory(slots=[["weights-memory"]])
    attempt_start(quiz=quiz, learner=UserFactory())
    assert item_analysis(quiz=quiz) == [] == reference(quiz)
