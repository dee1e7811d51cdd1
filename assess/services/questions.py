"""Variants for attempts: server-side seeds, new practice variants, adaptive practice.

The seed is an HMAC of the attempt, slot and variant number under SECRET_KEY, so a
learner cannot predict or choose a variant, and the same question can always be rebuilt
(the seed and the parameters are stored with it anyway, for regrading).
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from api_common.service_errors import Conflict
from assess import skills as skill_map
from assess.mastery.practice import practice_pick
from assess.models import Attempt, Enrolment, Question, Quiz, SkillMastery, Slot
from assess.policy import hints_offered
from assess.selectors import user_is_enrolled, user_is_instructor
from assess.services.enrolments import enrolment_self
from curricula.models import Lesson
from problems.engine import registry
from problems.engine.examples import is_example
from problems.engine.hints import hints_for
from problems.engine.render import render_markdown
from problems.engine.variants import Variant

EXAMPLE_REDRAWS = 20


def question_seed(
    *, attempt_id: int, slot_id: int, variant_number: int, draw: int = 0, again: int = 0
) -> int:
    """63 bits of HMAC-SHA256(SECRET_KEY, "attempt:slot:variant"): fits a BigInteger.

    `draw` counts redraws of the same question (certification exams redraw a variant the
    learner has seen); `again` the redraws away from a template's public example
    (question_draw). 0 keeps the original message, so stored seeds stay valid.
    """
    message = f"{attempt_id}:{slot_id}:{variant_number}"
    if draw:
        message += f":{draw}"
    if again:
        message += f":example-{again}"
    return _hmac63(message)


def drawn_seed(*, slot_id: int, number: int, again: int = 0) -> int:
    """The seed of the slot's `number`th variant drawn ahead of any attempt
    (assess.models.drawn): HMAC-SHA256 of "drawn:slot:number" as question_seed's, a
    message no attempt's seed has."""
    message = f"drawn:{slot_id}:{number}"
    if again:
        message += f":example-{again}"
    return _hmac63(message)


def _hmac63(message: str) -> int:
    digest = hmac.new(settings.SECRET_KEY.encode(), message.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def solved_parts(variant: Variant) -> list[dict]:
    """The answers JSON: a list, because jsonb does not keep an object's key order."""
    return [
        {
            "name": part.name,
            "value": part.value,
            "unit": part.unit,
            "kind": str(part.kind),
            "weight": part.weight,
            "choices": list(part.choices),
            "label": part.label,
        }
        for part in variant.parts.values()
    ]


def question_draw(
    *,
    attempt_id: int,
    slot: Slot,
    order: int,
    variant_number: int,
    template_slug: str | None = None,
    draw: int = 0,
    withheld: frozenset[str] = frozenset(),
) -> tuple[int, Variant]:
    """(seed, variant): the template drawn from the slot's pool with the seed's own rng
    (unless one is imposed, as adaptive practice does), then the variant. Cheap next to
    building the question (no rendering), so redraws go through here.

    A draw that lands on the template's public worked example (problems.engine.examples:
    its solution is on the lesson page) is drawn again from a seed of its own, up to
    EXAMPLE_REDRAWS times (a template with hardly any variants keeps the last).
    `withheld` templates are left out of the pool unless they are all it holds
    (assess.signals.certification_withholding)."""
    pool: list[str] = []
    if template_slug is None:
        # The pool was validated at creation; a template removed since is skipped.
        pool = skill_map.known_templates(slot.templates)
        if not pool:
            raise Conflict(f"Question {order} has no template available any more.")
        pool = [t for t in pool if t not in withheld] or pool
    return variant_draw(
        lambda again: question_seed(
            attempt_id=attempt_id,
            slot_id=slot.pk,
            variant_number=variant_number,
            draw=draw,
            again=again,
        ),
        template_slug=template_slug,
        pool=pool,
    )


def variant_draw(
    seed_of: Callable[[int], int], *, template_slug: str | None, pool: list[str]
) -> tuple[int, Variant]:
    """(seed, variant) for the seeds seed_of(0), seed_of(1), ...: the template is
    `template_slug`, else drawn from `pool` with the seed's own rng; a variant that is
    its template's public example is drawn again from the next seed (question_draw)."""
    for again in range(EXAMPLE_REDRAWS):
        seed = seed_of(again)
        slug = template_slug if template_slug is not None else random.Random(seed).choice(pool)
        variant = Variant.from_seed(slug, seed)
        if not is_example(variant):
            break
    return seed, variant


# What a question stores of its variant, and a variant drawn ahead keeps for its question
# (assess.models.drawn): variant_columns' keys.
VARIANT_COLUMNS = (
    "template_slug",
    "template_version",
    "params",
    "answers",
    "statement_markdown",
    "statement_html",
)


def variant_columns(variant: Variant) -> dict:
    """{column: value} of VARIANT_COLUMNS for a drawn variant: its template, parameters,
    solved parts and statement (the Markdown and its HTML, rendered once here)."""
    statement = variant.statement_markdown()
    return {
        "template_slug": variant.template.slug,
        "template_version": variant.template.version,
        "params": variant.params.model_dump(mode="json"),
        "answers": solved_parts(variant),
        "statement_markdown": statement,
        "statement_html": render_markdown(statement),
    }


def question_from_variant(
    *, attempt: Attempt, slot: Slot, order: int, variant_number: int, seed: int, variant: Variant
) -> Question:
    """An unsaved question for a drawn variant, with its solved parts, its statement and,
    where its quiz offers hints, how many its solution gives (`attempt` None: a preview)."""
    offered = attempt is not None and hints_offered(quiz=attempt.quiz)
    return Question(
        attempt=attempt,
        slot=slot,
        order=order,
        seed=seed,
        variant_number=variant_number,
        hint_total=len(hints_for(variant)) if offered else None,
        **variant_columns(variant),
    )


def question_build(
    *,
    attempt: Attempt,
    slot: Slot,
    order: int,
    variant_number: int,
    template_slug: str | None = None,
    draw: int = 0,
) -> Question:
    """An unsaved question: question_draw, then question_from_variant."""
    seed, variant = question_draw(
        attempt_id=attempt.pk,
        slot=slot,
        order=order,
        variant_number=variant_number,
        template_slug=template_slug,
        draw=draw,
    )
    return question_from_variant(
        attempt=attempt,
        slot=slot,
        order=order,
        variant_number=variant_number,
        seed=seed,
        variant=variant,
    )


def lock_open_attempt(attempt: Attempt, now: datetime) -> Attempt:
    """Lock the attempt row (call inside transaction.atomic) and check that it still
    takes answers; raises Conflict otherwise. Concurrent writers queue here."""
    locked = (
        Attempt.objects.select_for_update(of=("self",)).select_related("quiz").get(pk=attempt.pk)
    )
    if not locked.is_open:
        raise Conflict("This attempt is finished; it takes no more answers.")
    if locked.past_deadline(now):
        raise Conflict("The deadline of this attempt has passed.")
    return locked


def question_new_variant(
    *, attempt: Attempt, question: Question, now: datetime | None = None
) -> Question:
    """Practice only: replace the question with a fresh variant of the same slot. The old
    one stays stored (inactive) with its responses; exam variants are fixed."""
    now = now or timezone.now()
    if attempt.quiz.mode != Quiz.Mode.PRACTICE:
        raise Conflict("New variants are for practice; this quiz's variants are fixed.")
    with transaction.atomic():
        locked = lock_open_attempt(attempt, now)
        current = Question.objects.select_related("slot").get(pk=question.pk)
        if not current.active:
            raise Conflict("This question was already replaced by a new variant.")
        last = Question.objects.filter(attempt=locked, slot=current.slot).aggregate(
            n=Max("variant_number")
        )["n"]
        new = question_build(
            attempt=locked,
            slot=current.slot,
            order=current.order,
            variant_number=(last or 0) + 1,
            # Adaptive practice chose the template for its skill: keep it.
            template_slug=current.template_slug if locked.quiz.adaptive else None,
        )
        current.active = False
        current.save(update_fields=["active"])
        new.save()
    return new


# --------------------------------------------------------------------- adaptive practice


@dataclass(frozen=True)
class PracticeQuestion:
    attempt: Attempt
    question: Question
    skill: str


def _practice_quiz(lesson: Lesson, templates: list[str]) -> tuple[Quiz, Slot]:
    quiz, created = Quiz.objects.get_or_create(
        practice_lesson=lesson,
        defaults={
            "title": f"Practice: {lesson.title}",
            "mode": Quiz.Mode.PRACTICE,
            "feedback": Quiz.Feedback.IMMEDIATELY,
            "course": lesson.module.course,
            "adaptive": True,
        },
    )
    if created:
        quiz.lessons.add(lesson)
    slot, _ = Slot.objects.get_or_create(quiz=quiz, order=1, defaults={"templates": templates})
    if slot.templates != templates:  # the curriculum changed: keep the pool honest
        slot.templates = templates
        slot.save(update_fields=["templates"])
    return quiz, slot


def practice_question_add(
    *, learner, lesson: Lesson, session: int | None = None, now: datetime | None = None
) -> PracticeQuestion:
    """Start (or reuse) the learner's practice attempt for the lesson and add a question:
    the session goes round the lesson's templates, each once a round, the one on the
    weakest unmastered skill first, never one template twice in a row while the lesson
    has another (assess.mastery.practice.practice_pick).

    Practising a lesson enrols the learner in its course on first use, where the course
    allows self-enrolment (NotPermitted otherwise); its instructors and staff practise
    without enrolling.

    An attempt opened here is a session of `session` questions (None: open-ended, as
    the API's practice is); practice_sessions.practice_session_start chooses the
    length. A session that has drawn all its questions takes no more (Conflict): it
    ends, with its summary, when the learner finishes it."""
    now = now or timezone.now()
    course = lesson.module.course
    if not (
        learner.is_staff
        or user_is_instructor(user=learner, course_id=course.pk)
        or user_is_enrolled(user=learner, course_id=course.pk)
    ):
        enrolment_self(user=learner, course=course, source=Enrolment.Source.PRACTICE)
    linked = [link.template_slug for link in lesson.template_links.all()]
    # Templates the course's instructors wrote for this lesson (authoring), after the
    # curriculum's.
    extras = [s for s in registry.lesson_extras(lesson.slug, course.slug) if s not in linked]
    templates = skill_map.known_templates([*linked, *extras])
    skills = skill_map.lesson_skills(templates)
    if not skills:
        raise Conflict("This lesson has no practice problems yet.")
    with transaction.atomic():
        quiz, slot = _practice_quiz(lesson, templates)
        attempt = (
            Attempt.objects.select_for_update(of=("self",))
            .select_related("quiz")
            .filter(quiz=quiz, learner=learner, status=Attempt.Status.OPEN)
            .first()
        )
        if attempt is None:
            number = Attempt.objects.filter(quiz=quiz, learner=learner).count() + 1
            try:
                with transaction.atomic():
                    attempt = Attempt.objects.create(
                        quiz=quiz,
                        learner=learner,
                        number=number,
                        started_at=now,
                        practice_length=session,
                    )
            except IntegrityError:
                # A racing request opened it first: use that one, locked like any other,
                # so racers number their questions one after another.
                attempt = (
                    Attempt.objects.select_for_update(of=("self",))
                    .select_related("quiz")
                    .get(quiz=quiz, learner=learner, status=Attempt.Status.OPEN)
                )
        # The session's questions, read once: how many were drawn, the last variant
        # number, and the templates asked so far in order (for interleaving).
        asked = list(
            Question.objects.filter(attempt=attempt)
            .order_by("order", "variant_number")
            .values_list("order", "variant_number", "template_slug", "active")
        )
        drawn = max((order for order, _, _, _ in asked), default=0)
        if attempt.practice_length is not None and drawn >= attempt.practice_length:
            raise Conflict(
                f"This practice session has had all its {attempt.practice_length} "
                "questions: finish it to see your summary, or start a new session."
            )
        skill_ps = dict(
            SkillMastery.objects.filter(learner=learner, skill__in=skills).values_list(
                "skill", "p_mastery"
            )
        )
        variant_number = max((n for _, n, _, _ in asked), default=0) + 1
        seed = question_seed(attempt_id=attempt.pk, slot_id=slot.pk, variant_number=variant_number)
        pick = practice_pick(
            templates=templates,
            skills_of={t: skill_map.template_skills(t) for t in templates},
            skill_ps=skill_ps,
            drawn=[slug for _, _, slug, active in asked if active],
            rng=random.Random(seed),
        )
        question = question_build(
            attempt=attempt,
            slot=slot,
            order=drawn + 1,
            variant_number=variant_number,
            template_slug=pick.template,
        )
        question.save()
    return PracticeQuestion(attempt=attempt, question=question, skill=pick.skill)
