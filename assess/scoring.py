"""Scores from stored responses: pure functions, so services, review and regrade agree.

A part scores its latest valid response (0 if none); a question the weighted mean of its
parts (Part.weight); an attempt sum(points x question score) / sum(points).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass


def latest_scores(responses: Iterable) -> dict[tuple[int, str], float]:
    """{(question_id, part): score} of the latest valid response, by (created_at, id)."""
    latest: dict[tuple[int, str], tuple] = {}
    for r in responses:
        if not r.valid:
            continue
        key = (r.question_id, r.part)
        rank = (r.created_at, r.id)
        if key not in latest or rank > latest[key][0]:
            latest[key] = (rank, r.score)
    return {key: score for key, (_rank, score) in latest.items()}


def question_score(parts: Sequence[Mapping], part_scores: Mapping[str, float]) -> float:
    total = sum(float(p.get("weight", 1.0)) for p in parts)
    if total <= 0:
        return 0.0
    earned = sum(float(p.get("weight", 1.0)) * part_scores.get(p["name"], 0.0) for p in parts)
    return earned / total


@dataclass(frozen=True)
class AttemptScore:
    score: float  # fraction 0..1
    points: float  # points earned
    max_points: float
    per_question: dict[int, float]


def attempt_score(questions: Iterable, responses: Iterable) -> AttemptScore:
    """Score the attempt's active questions; each question needs `.slot.points`."""
    latest = latest_scores(responses)
    per_question: dict[int, float] = {}
    earned = 0.0
    total = 0.0
    for q in questions:
        parts = {p["name"]: latest.get((q.id, p["name"]), 0.0) for p in q.answers}
        score = question_score(q.answers, parts)
        per_question[q.id] = score
        earned += q.slot.points * score
        total += q.slot.points
    return AttemptScore(
        score=earned / total if total else 0.0,
        points=earned,
        max_points=total,
        per_question=per_question,
    )
