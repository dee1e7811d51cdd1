"""Scoring rules, pure: the counted try per part under each regime, weights, points."""

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace as NS

import pytest

from assess.scoring import (
    Rules,
    attempt_score,
    counted_responses,
    part_scores,
    question_score,
)

T0 = datetime(2026, 1, 1, tzinfo=UTC)
DEFERRED = Rules(deferred=True)
UNLIMITED = Rules(deferred=False)


def resp(i, qid, part, score, *, valid=True, t=0, correct=None):
    return NS(
        id=i,
        question_id=qid,
        part=part,
        score=score,
        correct=score == 1.0 if correct is None else correct,
        valid=valid,
        created_at=T0 + timedelta(seconds=t),
    )


def test_deferred_counts_the_latest_valid_answer():
    rows = [
        resp(1, 1, "a", 1.0, t=0),
        resp(2, 1, "a", 0.0, t=5),
        resp(3, 1, "a", 1.0, valid=False, t=9),
    ]
    assert part_scores(rows, DEFERRED) == {(1, "a"): 0.0}
    # Same timestamp: the later id wins.
    assert part_scores([resp(5, 1, "a", 0.5), resp(4, 1, "a", 1.0)], DEFERRED) == {(1, "a"): 0.5}
    assert [r.id for r in counted_responses(rows, DEFERRED)] == [2]


def test_immediate_counts_the_first_correct_try_and_ignores_later_ones():
    rows = [resp(1, 1, "a", 0.0, t=0), resp(2, 1, "a", 1.0, t=1), resp(3, 1, "a", 0.0, t=2)]
    assert part_scores(rows, UNLIMITED) == {(1, "a"): 1.0}
    # Mastery evidence is the first try, whatever came after it.
    assert [r.id for r in counted_responses(rows, UNLIMITED)] == [1]


def test_penalty_per_try_before_the_first_correct_one():
    rows = [resp(1, 1, "a", 0.0, t=0), resp(2, 1, "a", 0.0, t=1), resp(3, 1, "a", 1.0, t=2)]
    assert part_scores(rows, Rules(False, tries=3, penalty=0.25)) == {(1, "a"): 0.5}
    # The penalty never takes a part below zero.
    assert part_scores(rows, Rules(False, tries=None, penalty=0.75)) == {(1, "a"): 0.0}


def test_tries_past_the_limit_earn_nothing():
    rows = [resp(1, 1, "a", 0.0, t=0), resp(2, 1, "a", 0.0, t=1), resp(3, 1, "a", 1.0, t=2)]
    assert part_scores(rows, Rules(False, tries=2)) == {(1, "a"): 0.0}


def test_best_partial_try_counts_when_none_is_correct():
    rows = [resp(1, 1, "a", 0.25, t=0), resp(2, 1, "a", 0.5, t=1)]
    assert part_scores(rows, Rules(False, tries=3, penalty=0.1)) == {(1, "a"): pytest.approx(0.4)}


def test_rules_of_a_quiz():
    exam = NS(feedback="after_attempt", tries_per_part=None, penalty_per_try=0.0)
    homework = NS(feedback="immediately", tries_per_part=3, penalty_per_try=0.1)
    assert Rules.of(exam) == DEFERRED
    assert Rules.of(homework) == Rules(deferred=False, tries=3, penalty=0.1)


def test_question_score_is_the_weighted_mean():
    parts = [{"name": "a", "weight": 1.0}, {"name": "b", "weight": 3.0}]
    assert question_score(parts, {"b": 1.0}) == 0.75
    assert question_score(parts, {}) == 0.0


@pytest.mark.parametrize("rules", [DEFERRED, UNLIMITED])
def test_attempt_score_uses_slot_points(rules):
    q1 = NS(id=1, answers=[{"name": "a", "weight": 1.0}], slot=NS(points=1))
    q2 = NS(id=2, answers=[{"name": "a", "weight": 1.0}], slot=NS(points=3))
    result = attempt_score([q1, q2], [resp(1, 2, "a", 1.0)], rules)
    assert (result.score, result.points, result.max_points) == (0.75, 3.0, 4.0)
    assert result.per_question == {1: 0.0, 2: 1.0}
    assert attempt_score([], [], rules).score == 0.0


def test_partial_credit_counts():
    q = NS(id=1, answers=[{"name": "a", "weight": 1.0}], slot=NS(points=2))
    assert attempt_score([q], [resp(1, 1, "a", 0.5)], DEFERRED).points == pytest.approx(1.0)
