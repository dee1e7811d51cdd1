"""The institution's coursework: quizzes, attempts, questions, answers and mastery.

Quizzes are made by the real service (quiz_create, by a course instructor): per course a
mix of practice, homework (3 tries) and exams (deferred feedback, 3 attempts). Questions
are real engine variants with their stored statements: a pool of `variants_per_template`
drawn per template and shared (rendering 250,000 statements one by one would take the
generator's whole budget; a pool is what a class sees anyway). Answers are synthetic: a
learner of ability theta answers a template of difficulty b right with the logistic
chance, immediate-feedback parts stop at the first right try (or the quiz's limit),
exams take a few autosaves with the last counting. Each immediate-feedback first try is
mastery evidence: an event per skill (Bayesian knowledge tracing's update) and the
learner's skill row at the end. Written in chunks of attempts, each table by COPY,
parents before children.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta

from django.contrib.auth import get_user_model

from assess import skills as skill_map
from assess.models import Attempt, MasteryEvent, Question, Quiz, Response
from assess.services.questions import question_from_variant
from assess.services.quizzes import QuizSpec, SlotSpec, quiz_create
from assess.skills import is_drill
from curricula.models import LessonTemplate
from frontend.scale.people import People, prefix
from frontend.scale.plan import Plan, heavy_attempts, zipf
from frontend.scale.rows import Table
from problems.engine.variants import Variant

CHUNK = 4000  # attempts per round of writes
CAPS = {Quiz.Mode.PRACTICE: 30, Quiz.Mode.HOMEWORK: 3, Quiz.Mode.EXAM: 20}  # exams: autosaves
ATTEMPT_COLUMNS = [
    "id", "quiz_id", "learner_id", "number", "status", "started_at", "deadline",
    "finished_at", "score", "points",
]  # fmt: skip
PRIOR, LEARN, SLIP, GUESS = 0.3, 0.15, 0.1, 0.2  # the BKT of the synthetic evidence


@dataclass
class QuizRow:
    pk: int
    mode: str
    slots: list[tuple[int, str]]  # (slot id, template)


@dataclass
class Totals:
    attempts: int = 0
    questions: int = 0
    responses: int = 0
    events: int = 0
    mastery: dict[tuple[int, str], list] = field(default_factory=dict)  # -> [p, count, at]


def _course_templates(course) -> list[str]:
    slugs = (
        LessonTemplate.objects.filter(lesson__module__course=course)
        .order_by("lesson__module__order", "lesson__order", "order")
        .values_list("template_slug", flat=True)
    )
    seen = dict.fromkeys(s for s in skill_map.known_templates(slugs) if not is_drill(s))
    return list(seen)


def quizzes_load(plan: Plan, people: People) -> dict[int, list[QuizRow]]:
    """{course id: its quizzes}, most popular first (the Zipf rank is the list order)."""
    tag = prefix(plan)
    per_course: dict[int, list[QuizRow]] = {}
    total = plan.quizzes
    for n, course in enumerate(people.courses):
        templates = _course_templates(course)
        if not templates:
            continue
        count = total // len(people.courses) + (1 if n < total % len(people.courses) else 0)
        author = get_user_model().objects.get(pk=people.instructors[course.pk][0])
        rows = []
        for k in range(count):
            mode = (Quiz.Mode.EXAM, Quiz.Mode.PRACTICE, Quiz.Mode.HOMEWORK, Quiz.Mode.HOMEWORK)[
                k % 4
            ]
            picked = [templates[(k * plan.questions_per_quiz + j) % len(templates)]
                      for j in range(plan.questions_per_quiz)]  # fmt: skip
            spec = QuizSpec(
                title=f"{tag} {course.slug} quiz {k + 1}",
                mode=mode,
                course_slug=course.slug,
                slots=[SlotSpec([t]) for t in picked],
                time_limit=timedelta(minutes=60) if mode == Quiz.Mode.EXAM else None,
                attempts_allowed=3 if mode == Quiz.Mode.EXAM else None,
            )
            quiz = quiz_create(user=author, spec=spec)
            slots = [(s.pk, s.templates[0]) for s in quiz.slots.order_by("order")]
            rows.append(QuizRow(quiz.pk, mode, slots))
        per_course[course.pk] = rows
    return per_course


@dataclass(frozen=True)
class PoolVariant:
    values: dict  # Question columns by attname
    parts: list[dict]
    skills: tuple[str, ...]
    # per part, the variant's own named slips (code, the answer it produces): a wrong
    # answer that names a misconception is one the engine names the same way
    slips: dict[str, list[tuple[str, object]]]


def variant_pool(plan: Plan, quizzes: dict[int, list[QuizRow]], rng: random.Random):
    """{template: ([PoolVariant], difficulty b)}: real variants, each rendered once."""
    templates = sorted({t for rows in quizzes.values() for q in rows for _, t in q.slots})
    pool = {}
    for slug in templates:
        variants = []
        for _ in range(plan.variants_per_template):
            seed = rng.getrandbits(62)
            variant = Variant.from_seed(slug, seed)
            q = question_from_variant(
                attempt=None, slot=None, order=1, variant_number=1, seed=seed, variant=variant
            )
            values = {
                "template_slug": q.template_slug, "template_version": q.template_version,
                "seed": q.seed, "params": q.params, "answers": q.answers,
                "statement_html": q.statement_html, "statement_markdown": q.statement_markdown,
            }  # fmt: skip
            slips: dict[str, list[tuple[str, object]]] = {}
            for m in variant.misconceptions:
                slips.setdefault(m.part, []).append((m.code, m.value))
            variants.append(PoolVariant(values, q.answers, skill_map.template_skills(slug), slips))
        pool[slug] = (variants, rng.gauss(0, 1))
    return pool


def _typed(part: dict, value) -> tuple[str, object, str]:
    """(raw, parsed value, parsed unit) of `value` typed as the part's answer: a choice
    as itself, a number in the part's unit (e.g. the answer a named slip produces)."""
    if part["kind"] == "choice":
        return str(value), value, ""
    unit = part.get("unit") or ""
    return f"{value:.6g} {unit}".strip(), value, unit


def _answer(part: dict, right: bool, k: int) -> tuple[str, object, str]:
    """(raw, parsed value, parsed unit) of a right answer, or the k-th wrong one."""
    if part["kind"] == "choice":
        wrong = [c for c in part["choices"] if c != part["value"]] or [part["value"]]
        return _typed(part, part["value"] if right else wrong[k % len(wrong)])
    value = float(part["value"]) if right else float(part["value"]) * (1.37 + 0.11 * k)
    if part["kind"] == "integer":
        value = int(round(value)) + (0 if right else 1)
    return _typed(part, value)


def _bkt(p: float, correct: bool) -> float:
    seen = (
        p * (1 - SLIP) / (p * (1 - SLIP) + (1 - p) * GUESS)
        if correct
        else (p * SLIP / (p * SLIP + (1 - p) * (1 - GUESS)))
    )
    return seen + (1 - seen) * LEARN


def _tries(mode: str, rng: random.Random, lam: float) -> int:
    """How many answers a part gets at most: 1 plus a Poisson draw, capped by the mode."""
    extra, limit, u = 0, math.exp(-lam), rng.random()
    p = limit
    while u > p and extra < 40:  # inverse-transform Poisson
        extra += 1
        limit *= lam / extra
        p += limit
    return min(CAPS[mode], 1 + extra)


class Writers:
    def __init__(self):
        self.attempts = Table(Attempt, ATTEMPT_COLUMNS)
        self.questions = Table(Question, [
            "id", "attempt_id", "slot_id", "order", "template_slug", "template_version", "seed",
            "variant_number", "params", "answers", "statement_html", "statement_markdown",
            "active", "created_at", "hints"])  # fmt: skip
        self.responses = Table(Response, [
            "id", "attempt_id", "question_id", "part", "raw", "parsed_value", "parsed_unit",
            "valid", "correct", "score", "misconception", "feedback", "created_at",
            "time_spent_ms", "idempotency_key", "evidence"])  # fmt: skip
        self.events = Table(MasteryEvent, ["learner_id", "skill", "p_before", "p_after",
                                           "response_id", "created_at"])  # fmt: skip
        self.next = {"attempt": self.attempts.next_id(), "question": self.questions.next_id(),
                     "response": self.responses.next_id()}  # fmt: skip


def attempt_plan(plan: Plan, people: People, quizzes, rng: random.Random) -> Iterator[tuple]:
    """(learner, quiz row, number) for every attempt, heavy learners first."""
    heavy = heavy_attempts(plan)
    counts = {people.learners[i]: c for i, c in enumerate(heavy)}
    light = people.learners[len(heavy) :]
    budget = max(0, plan.attempts - sum(heavy))
    for i, learner in enumerate(light):
        counts[learner] = 1 if i < budget else 0
    for learner in rng.choices(light, k=max(0, budget - len(light))) if light else []:
        counts[learner] += 1
    weights = {c: zipf(len(rows)) for c, rows in quizzes.items()}
    numbers: dict[tuple[int, int], int] = {}
    for n, learner in enumerate(people.learners):
        courses = [c for c in people.enrolled[learner] if c in quizzes]
        for _ in range(counts.get(learner, 0)):
            course = rng.choice(courses)
            rows = quizzes[course]
            quiz = rng.choices(rows, weights=weights[course])[0]
            if (
                n < len(heavy)
                or numbers.get((quiz.pk, learner), 0) >= 3
                and quiz.mode == Quiz.Mode.EXAM
            ):
                quiz = next((q for q in rows if q.mode == Quiz.Mode.PRACTICE), quiz)
            number = numbers.get((quiz.pk, learner), 0) + 1
            numbers[(quiz.pk, learner)] = number
            yield learner, quiz, number
