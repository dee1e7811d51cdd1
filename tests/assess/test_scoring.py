"""Scoring rules, pure: latest valid response per part, weights, points."""

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace as NS

import pytest

from assess.scoring import attempt_score, latest_scores, question_score

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def resp(i, qid, part, score, *, valid=True, t=0):
    return NS(
        id=i,
        question_id=qid,
        part=part,
        score=score,
        valid=valid,
        created_at=T0 + timedelta(seconds=t),
    )


def test_latest_valid_response_wins():
    rows = [
        resp(1, 1, "a", 1.0, t=0),
        resp(2, 1, "a", 0.0, t=5),
        resp(3, 1, "a", 1.0, valid=False, t=9),
    ]
    assert latest_scores(rows) == {(1, "a"): 0.0}
    # Same timestamp: the later id wins.
    assert latest_scores([resp(5, 1, "a", 0.5), resp(4, 1, "a", 1.0)]) == {(1, "a"): 0.5}


def test_question_score_is_the_weighted_mean():
    parts = [{"name": "a", "weight": 1.0}, {"name": "b", "weight": 3.0}]
    assert question_score(parts, {"b": 1.0}) == 0.75
    assert question_score(parts, {}) == 0.0


def test_attempt_score_uses_slot_points():
    q1 = NS(id=1, answers=[{"name": "a", "weight": 1.0}], slot=NS(points=1))
    q2 = NS(id=2, answers=[{"name": "a", "weight": 1.0}], slot=NS(points=3))
    result = attempt_score([q1, q2], [resp(1, 2, "a", 1.0)])
    assert (result.score, result.points, result.max_points) == (0.75, 3.0, 4.0)
    assert result.per_question == {1: 0.0, 2: 1.0}
    assert attempt_score([], []).score == 0.0


def test_partial_credit_counts():
    q = NS(id=1, answers=[{"name": "a", "weight": 1.0}], slot=NS(points=2))
    assert attempt_score([q], [resp(1, 1, "a", 0.5)]).points == pytest.approx(1.0)
