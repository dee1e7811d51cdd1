"""Item analysis of a quiz per template: difficulty, discrimination, common mistakes.

Read-only; the caller gates access (selectors.quiz_get_for_instructor). Two queries for
the whole quiz; the statistics are computed here in Python.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from django.db.models import Q, QuerySet

from assess.models import Attempt, Question, Quiz, Response

TOP_MISCONCEPTIONS = 3


def point_biserial(correct: Sequence[bool], totals: Sequence[float]) -> float | None:
    """Pearson correlation of a 0/1 item with the total score; None when undefined (fewer
    than two observations, or no spread in either variable)."""
    n = len(correct)
    if n < 2 or len(totals) != n:
        return None
    xs = [1.0 if c else 0.0 for c in correct]
    mx = sum(xs) / n
    my = sum(totals) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in totals)
    if sxx <= 0 or syy <= 1e-18:
        return None
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, totals, strict=True))
    r = sxy / math.sqrt(sxx * syy)
    return max(-1.0, min(1.0, r))


@dataclass(frozen=True)
class ItemStats:
    template: str
    responses: int
    proportion_correct: float | None  # of responses
    questions: int  # questions in finished attempts, the discrimination sample
    discrimination: float | None
    misconceptions: list[tuple[str, int]]
    median_time_spent_ms: float | None


def item_analysis(*, quiz: Quiz, attempts: QuerySet[Attempt] | None = None) -> list[ItemStats]:
    """Per template used in the quiz, ordered by slug; over `attempts` (of the quiz) when
    given: the instructor's, from selectors.attempts_for_instructor, so an instructor
    scoped to an LMS course aggregates only its learners' attempts.

    Only closed (finished or expired) attempts count: an open attempt's answers are not
    final, and under deferred feedback their correctness is hidden from everyone until
    the policy releases it, an instructor who takes the quiz included.

    An item is correct in an attempt when every part's latest response is correct;
    discrimination is its point-biserial correlation with the attempt's score.
    """
    scope = {"attempt__quiz": quiz}
    if attempts is not None:
        scope["attempt__in"] = attempts.order_by().values("pk")
    closed = ~Q(attempt__status=Attempt.Status.OPEN)
    questions = list(
        Question.objects.filter(closed, **scope).values(
            "id", "template_slug", "active", "answers", "attempt__status", "attempt__score"
        )
    )
    responses = list(
        Response.objects.filter(closed, **scope)
        .order_by("created_at", "id")
        .values("question_id", "part", "correct", "misconception", "time_spent_ms")
    )
    slug_of = {q["id"]: q["template_slug"] for q in questions}
    by_template: dict[str, list[dict]] = defaultdict(list)
    latest_correct: dict[tuple[int, str], bool] = {}
    for r in responses:
        by_template[slug_of[r["question_id"]]].append(r)
        latest_correct[(r["question_id"], r["part"])] = r["correct"]

    sample: dict[str, tuple[list[bool], list[float]]] = defaultdict(lambda: ([], []))
    for q in questions:
        if not q["active"] or q["attempt__score"] is None:
            continue
        ok = all(latest_correct.get((q["id"], p["name"]), False) for p in q["answers"])
        xs, ys = sample[q["template_slug"]]
        xs.append(ok)
        ys.append(q["attempt__score"])

    out = []
    for slug in sorted({q["template_slug"] for q in questions}):
        rows = by_template.get(slug, [])
        codes = Counter(r["misconception"] for r in rows if r["misconception"])
        top = sorted(codes.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_MISCONCEPTIONS]
        times = [r["time_spent_ms"] for r in rows if r["time_spent_ms"] is not None]
        xs, ys = sample.get(slug, ([], []))
        out.append(
            ItemStats(
                template=slug,
                responses=len(rows),
                proportion_correct=(sum(r["correct"] for r in rows) / len(rows)) if rows else None,
                questions=len(xs),
                discrimination=point_biserial(xs, ys),
                misconceptions=top,
                median_time_spent_ms=statistics.median(times) if times else None,
            )
        )
    return out
