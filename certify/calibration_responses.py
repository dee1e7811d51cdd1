"""The responses a calibration reads: one right-or-wrong per learner and template.

The 2PL model (certify/psychometrics) treats each template as an item, so each learner
contributes at most one response to it, chosen the same way everywhere:

- the learner's earliest question of the template that gives a response (so a template
  met first in practice and again in an exam counts once, as first met);
- its first part (numeric, integer or choice: every part is one of these);
- in practice and homework, the first try at that part, the honest one (a try made
  after a hint or after revealing the part is left out, and so is the question);
- in exams and certifications, the counted answer: the last one saved to that part, in
  an attempt that has ended (an open attempt's answers may still change).

A question whose part was never answered gives nothing (not reached is not wrong).
Incident drills give nothing: they are scored by their own rubric, not as 2PL items.
Reading goes a chunk of questions at a time, with their answers and reveals; the choice
is made in pure Python (`pick_responses`) so it can be tested on plain rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime

from assess.models import Attempt, Question, Quiz, Response, Reveal
from problems.drills import registry as drill_registry

FIRST_TRY_MODES = frozenset({Quiz.Mode.PRACTICE, Quiz.Mode.HOMEWORK})
COUNTED_MODES = frozenset({Quiz.Mode.EXAM, Quiz.Mode.CERTIFICATION})
ENDED = frozenset({Attempt.Status.FINISHED, Attempt.Status.EXPIRED})
CHUNK = 2000


@dataclass(frozen=True)
class QuestionRow:
    id: int
    learner_id: int
    template: str
    mode: str
    ended: bool
    part: str | None  # the first part's name
    created_at: datetime
    hinted_at: datetime | None
    revealed_at: datetime | None  # when the first part was revealed, if it was


@dataclass(frozen=True)
class AnswerRow:
    question_id: int
    part: str
    correct: bool
    created_at: datetime
    id: int


def _usable(question: QuestionRow, answers: list[AnswerRow]) -> AnswerRow | None:
    mine = sorted(
        (a for a in answers if a.part == question.part), key=lambda a: (a.created_at, a.id)
    )
    if not mine:
        return None
    if question.mode in FIRST_TRY_MODES:
        first = mine[0]
        helped = [t for t in (question.hinted_at, question.revealed_at) if t is not None]
        return None if any(t <= first.created_at for t in helped) else first
    if question.mode in COUNTED_MODES and question.ended:
        return mine[-1]
    return None


Chosen = dict[tuple[int, str], tuple[datetime, int, int]]


def _choose(chosen: Chosen, questions: Iterable[QuestionRow], answers: Iterable[AnswerRow]):
    by_question: dict[int, list[AnswerRow]] = {}
    for a in answers:
        by_question.setdefault(a.question_id, []).append(a)
    for q in questions:
        answer = _usable(q, by_question.get(q.id, []))
        if answer is None:
            continue
        key = (q.learner_id, q.template)
        candidate = (q.created_at, q.id, int(answer.correct))
        if key not in chosen or candidate[:2] < chosen[key][:2]:
            chosen[key] = candidate


def _listed(chosen: Chosen) -> list[tuple[int, str, int]]:
    return sorted((learner, template, c[2]) for (learner, template), c in chosen.items())


def pick_responses(
    questions: Iterable[QuestionRow], answers: Iterable[AnswerRow]
) -> list[tuple[int, str, int]]:
    """(learner id, template slug, 0 or 1) per learner and template, by the rule above."""
    chosen: Chosen = {}
    _choose(chosen, questions, answers)
    return _listed(chosen)


def _question_rows(chunk: list[tuple]) -> list[QuestionRow]:
    ids = [row[0] for row in chunk]
    reveals = dict(
        ((question_id, part), at)
        for question_id, part, at in Reveal.objects.filter(question_id__in=ids).values_list(
            "question_id", "part", "created_at"
        )
    )
    rows = []
    for qid, learner, template, mode, status, parts, created, hinted in chunk:
        part = parts[0]["name"] if parts else None
        rows.append(
            QuestionRow(
                qid,
                learner,
                template,
                mode,
                status in ENDED,
                part,
                created,
                hinted,
                reveals.get((qid, part)),
            )  # fmt: skip
        )
    return rows


def _chunks() -> Iterator[tuple[list[QuestionRow], list[AnswerRow]]]:
    """Questions in id order, CHUNK at a time, each chunk with its valid answers: memory
    stays bounded by a chunk however many answers there are. Replaced variants count
    (active or not): a first try on a variant later replaced is still the first try."""
    drills = drill_registry.slugs()
    rows = (
        Question.objects.exclude(template_slug__in=drills)
        .order_by("id")
        .values_list(
            "id",
            "attempt__learner_id",
            "template_slug",
            "attempt__quiz__mode",
            "attempt__status",
            "answers",
            "created_at",
            "hinted_at",
        )
    )
    chunk: list[tuple] = []
    for row in rows.iterator(CHUNK):
        chunk.append(row)
        if len(chunk) == CHUNK:
            yield _with_answers(chunk)
            chunk = []
    if chunk:
        yield _with_answers(chunk)


def _with_answers(chunk: list[tuple]) -> tuple[list[QuestionRow], list[AnswerRow]]:
    questions = _question_rows(chunk)
    answers = Response.objects.filter(
        question_id__in=[q.id for q in questions], valid=True
    ).values_list("question_id", "part", "correct", "created_at", "id")
    return questions, [AnswerRow(*row) for row in answers]


def calibration_responses() -> list[tuple[int, str, int]]:
    """Every learner's response per template, for calibration (the rule above)."""
    return [row[:3] for row in calibration_responses_with_questions()]


def calibration_responses_with_questions() -> list[tuple[int, str, int, int]]:
    """The same responses, each with the id of the question it came from: the variant
    the learner answered, whose parameters say whether variants differ in difficulty."""
    chosen: dict[tuple[int, str], tuple[datetime, int, int]] = {}
    for questions, answers in _chunks():
        _choose(chosen, questions, answers)
    return sorted((learner, template, c[2], c[1]) for (learner, template), c in chosen.items())
