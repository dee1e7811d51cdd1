"""Scores from stored responses: pure functions, so services, review and regrade agree.

How a part scores depends on when its grade is seen (`Rules`):

- Immediate feedback (practice, homework): each answer is a *try* the learner sees graded.
  The part scores its first correct try within the quiz's limit, less `penalty_per_try`
  for each try before it; with no correct try, the best try by the same reckoning (a
  partially credited estimate), and never below 0. Tries past the limit cannot be
  stored (the service refuses them); they are ignored here all the same. A quiz with no
  limit of its own still closes a part at TRIES_CEILING tries (assess.policy): an
  answer's statement reads the question's tries, so its cost must stay bounded
  however long a learner keeps practising one variant.
- Deferred feedback (exams, certifications, any quiz set to later feedback): the learner
  may change an answer until the finish; the last saved answer counts. A part keeps at
  most SAVES_CEILING saves (assess.policy): each save's statement reads the question's
  saves, so 20,000 of them made every request on the attempt take 0.4-0.7 s.

A homework part also loses `hint_penalty` for each hint asked from it (Question.hints),
never below 0; practice hints are free (exams offer none).

A question scores the weighted mean of its parts (Part.weight); an attempt
sum(points x question score) / sum(points).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

IMMEDIATELY = "immediately"  # Quiz.Feedback.IMMEDIATELY, kept here so this stays pure
HOMEWORK = "homework"  # Quiz.Mode.HOMEWORK
# The most tries one part takes under immediate feedback, whatever the quiz allows: past
# it a learner asks for another variant (a new question, tries from zero). 30 is about
# ten times what a learner who is still learning from the feedback takes (practice's
# median is 1-2 tries a part), and keeps an answer's read of its question's tries small.
TRIES_CEILING = 30
# The most saves one part keeps under deferred feedback: the pages save a part each time
# its box loses focus (tens of saves in an exam), so 200 is reached only by a script;
# past it the part takes no more and its last save counts.
SAVES_CEILING = 200


@dataclass(frozen=True)
class Rules:
    deferred: bool  # the last saved answer counts; no tries, no penalty
    tries: int | None = None  # graded tries per part, None: unlimited
    penalty: float = 0.0  # share of the part lost per try before the first correct one
    hint_penalty: float = 0.0  # share of the part lost per hint asked from it (homework)

    @classmethod
    def of(cls, quiz) -> Rules:
        """The quiz's rules: anything with mode, feedback, tries_per_part,
        penalty_per_try and hint_penalty."""
        homework = getattr(quiz, "mode", None) == HOMEWORK
        hint = float(getattr(quiz, "hint_penalty", 0.0) or 0.0) if homework else 0.0
        if quiz.feedback != IMMEDIATELY:
            return cls(deferred=True, hint_penalty=hint)
        return cls(
            deferred=False,
            tries=quiz.tries_per_part,
            penalty=quiz.penalty_per_try,
            hint_penalty=hint,
        )


def part_score(tries: Sequence, rules: Rules, hints: int = 0) -> float:
    """Score of one part from its valid responses in the order they were stored, less
    the hint penalty for the `hints` asked from it."""
    return max(0.0, _tries_score(tries, rules) - rules.hint_penalty * hints)


def _tries_score(tries: Sequence, rules: Rules) -> float:
    if not tries:
        return 0.0
    if rules.deferred:
        return float(tries[-1].score)
    best = 0.0
    counted = tries if rules.tries is None else tries[: rules.tries]
    for k, r in enumerate(counted):
        best = max(best, float(r.score) - rules.penalty * k)
        if r.correct:
            break
    return max(0.0, best)


def tries_by_part(responses: Iterable) -> dict[tuple[int, str], list]:
    """{(question_id, part): [valid responses in (created_at, id) order]}."""
    grouped: dict[tuple[int, str], list] = {}
    for r in sorted((r for r in responses if r.valid), key=lambda r: (r.created_at, r.id)):
        grouped.setdefault((r.question_id, r.part), []).append(r)
    return grouped


def part_scores(responses: Iterable, rules: Rules) -> dict[tuple[int, str], float]:
    """{(question_id, part): score} under the rules."""
    return {key: part_score(tries, rules) for key, tries in tries_by_part(responses).items()}


def counted_responses(responses: Iterable, rules: Rules) -> list:
    """The response that decides each part: for deferred feedback its last saved answer,
    for immediate feedback its first try (the one a learner answered unaided). These are
    the honest evidence mastery learns from."""
    pick = -1 if rules.deferred else 0
    return [tries[pick] for tries in tries_by_part(responses).values()]


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


def attempt_score(questions: Iterable, responses: Iterable, rules: Rules) -> AttemptScore:
    """Score the attempt's active questions; each question needs `.slot.points`."""
    tries = tries_by_part(responses)
    per_question: dict[int, float] = {}
    earned = 0.0
    total = 0.0
    for q in questions:
        hints = getattr(q, "hints", None) or {}
        parts = {
            p["name"]: part_score(tries.get((q.id, p["name"]), ()), rules, hints.get(p["name"], 0))
            for p in q.answers
        }
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
