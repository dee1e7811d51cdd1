"""What a quiz may be: the spec an instructor writes and the one check of it.

Creating and editing a quiz both go through `spec_check`, so a rule (a bound, the
feedback a mode allows, tries only with immediate feedback, the window's order) is
written once and no path around it exists.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.core.exceptions import ValidationError

from assess.models import Quiz
from assess.models.quiz import validate_template_pool
from assess.scoring import TRIES_CEILING
from curricula.models import Course, Lesson
from problems.engine import registry

# Exams and certifications must not reveal correctness while other attempts may be
# running; practice and homework default to teaching right away.
_DEFAULT_FEEDBACK = {
    Quiz.Mode.PRACTICE: Quiz.Feedback.IMMEDIATELY,
    Quiz.Mode.HOMEWORK: Quiz.Feedback.IMMEDIATELY,
    Quiz.Mode.EXAM: Quiz.Feedback.AFTER_ATTEMPT,
    Quiz.Mode.CERTIFICATION: Quiz.Feedback.AFTER_ATTEMPT,
}


# Homework teaches with feedback but still grades: a few tries, by default at no cost.
_DEFAULT_TRIES = {Quiz.Mode.HOMEWORK: 3}

# Bounds on what a quiz may ask for: beyond them a number is a typo or an attack, and
# some (a time limit of 10^15 minutes) would overflow dates downstream.
MAX_TIME_LIMIT = timedelta(days=7)
MAX_ATTEMPTS = 100
MAX_POINTS = 1000
MAX_TRIES = TRIES_CEILING  # a part takes no more under any quiz (assess.scoring)
MAX_SLOTS = 100
# Templates listed across all slots: each is looked up when the quiz is saved and when an
# attempt starts (an authored one in the database), so 100 slots of 100 each made 20,000
# queries of every learner's start (14 s).
MAX_POOL_ENTRIES = 500


@dataclass(frozen=True)
class SlotSpec:
    templates: Sequence[str]
    points: int = 1


@dataclass(frozen=True)
class QuizSpec:
    title: str
    mode: str
    slots: Sequence[SlotSpec]
    course_slug: str | None = None
    lesson_slugs: Sequence[str] = field(default_factory=tuple)
    time_limit: timedelta | None = None
    attempts_allowed: int | None = None
    feedback: str | None = None
    opens_at: datetime | None = None
    closes_at: datetime | None = None
    pass_mark: float = 0.5
    tries_per_part: int | None = None  # None: the mode's default (homework 3, else unlimited)
    penalty_per_try: float = 0.0
    hint_penalty: float = 0.0  # homework only: share of a part lost per hint
    counting_attempt: str = Quiz.Counting.BEST


@dataclass(frozen=True)
class CheckedSpec:
    """A spec that passed spec_check, with what it resolved: the course and lesson rows,
    the feedback and tries the mode's defaults gave."""

    spec: QuizSpec
    course: Course | None
    lessons: list[Lesson]
    feedback: str
    tries: int | None

    def field_values(self) -> dict:
        """The quiz's own columns, as Quiz(**values) or an update takes them."""
        s = self.spec
        return {
            "title": s.title,
            "mode": s.mode,
            "course": self.course,
            "time_limit": s.time_limit,
            "attempts_allowed": s.attempts_allowed,
            "feedback": self.feedback,
            "opens_at": s.opens_at,
            "closes_at": s.closes_at,
            "pass_mark": s.pass_mark,
            "tries_per_part": self.tries,
            "penalty_per_try": s.penalty_per_try,
            "hint_penalty": s.hint_penalty,
            "counting_attempt": s.counting_attempt,
        }


def _check_rules(spec: QuizSpec, errors: dict[str, list[str]]) -> tuple[str, int | None]:
    """Mode, feedback, window, bounds, tries: (feedback, tries) with the defaults."""
    if spec.mode not in Quiz.Mode.values:
        errors["mode"] = [f"Mode must be one of {', '.join(Quiz.Mode.values)}."]
    feedback = spec.feedback or _DEFAULT_FEEDBACK.get(spec.mode, Quiz.Feedback.AFTER_ATTEMPT)
    if feedback not in Quiz.Feedback.values:
        errors["feedback"] = [f"Feedback must be one of {', '.join(Quiz.Feedback.values)}."]
    elif spec.mode in (Quiz.Mode.EXAM, Quiz.Mode.CERTIFICATION) and (
        feedback == Quiz.Feedback.IMMEDIATELY
    ):
        errors["feedback"] = ["Exams and certifications cannot show feedback immediately."]
    elif feedback == Quiz.Feedback.AFTER_CLOSE and spec.closes_at is None:
        errors["feedback"] = ["Feedback after close needs a closing time."]
    if spec.opens_at and spec.closes_at and spec.opens_at >= spec.closes_at:
        errors["closes_at"] = ["The quiz must close after it opens."]
    if spec.counting_attempt not in Quiz.Counting.values:
        errors["counting_attempt"] = [
            f"Counting attempt must be one of {', '.join(Quiz.Counting.values)}."
        ]
    if not 0.0 <= spec.pass_mark <= 1.0:
        errors["pass_mark"] = ["The pass mark is a fraction between 0 and 1."]
    if spec.attempts_allowed is not None and not 1 <= spec.attempts_allowed <= MAX_ATTEMPTS:
        errors["attempts_allowed"] = [f"From 1 to {MAX_ATTEMPTS} attempts, or none for unlimited."]
    if spec.time_limit is not None and not timedelta(0) < spec.time_limit <= MAX_TIME_LIMIT:
        errors["time_limit"] = ["The time limit must be positive and at most 7 days."]
    tries = spec.tries_per_part
    if feedback != Quiz.Feedback.IMMEDIATELY:
        message = (
            "Tries and penalties apply with immediate feedback; with later feedback "
            "the last saved answer counts."
        )
        if tries is not None:
            errors["tries_per_part"] = [message]
        if spec.penalty_per_try:
            errors["penalty_per_try"] = [message]
    else:
        tries = tries if tries is not None else _DEFAULT_TRIES.get(spec.mode)
        if tries is not None and not 1 <= tries <= MAX_TRIES:
            errors["tries_per_part"] = [f"From 1 to {MAX_TRIES} tries, or none for unlimited."]
        if not 0.0 <= spec.penalty_per_try <= 1.0:
            errors["penalty_per_try"] = ["The penalty is a fraction of the part, 0 to 1."]
    if spec.hint_penalty and spec.mode != Quiz.Mode.HOMEWORK:
        errors["hint_penalty"] = [
            "Only homework charges for hints: practice hints are free, exams offer none."
        ]
    elif not 0.0 <= spec.hint_penalty <= 1.0:
        errors["hint_penalty"] = ["The hint penalty is a fraction of the part, 0 to 1."]
    return feedback, tries


def _check_slots(spec: QuizSpec, errors: dict[str, list[str]]) -> None:
    if not spec.slots:
        errors["slots"] = ["A quiz needs at least one slot."]
    if len(spec.slots) > MAX_SLOTS:
        errors["slots"] = [f"A quiz has at most {MAX_SLOTS} slots."]
    entries = sum(len(slot.templates) for slot in spec.slots)
    if entries > MAX_POOL_ENTRIES:
        errors.setdefault("slots", []).append(
            f"A quiz lists at most {MAX_POOL_ENTRIES} templates across its slots; this one "
            f"lists {entries}."
        )
        return  # none looked up
    for i, slot in enumerate(spec.slots[:MAX_SLOTS]):
        try:
            validate_template_pool(list(slot.templates))
        except ValidationError as err:
            errors.setdefault("slots", []).append(f"slot {i + 1}: {' '.join(err.messages)}")
            continue
        for slug in slot.templates:
            # An authored template belongs to one course: only its quizzes draw it.
            owner = getattr(registry.get(slug), "owner_course", None)
            if owner is not None and owner != spec.course_slug:
                errors.setdefault("slots", []).append(
                    f"slot {i + 1}: {slug!r} is written for the course {owner!r}; only its "
                    "quizzes may use it."
                )
        if not 1 <= slot.points <= MAX_POINTS:
            errors.setdefault("slots", []).append(
                f"slot {i + 1}: points must be from 1 to {MAX_POINTS}."
            )


def spec_course(spec: QuizSpec) -> Course | None:
    """The course the spec names, None if it names none or an unknown one (spec_check
    then refuses it): read first, so who may write to it is checked before the rest."""
    if not spec.course_slug:
        return None
    return Course.objects.filter(slug=spec.course_slug).first()


def spec_check(spec: QuizSpec, *, course: Course | None) -> CheckedSpec:
    """The spec's lessons and rules, field by field, with its course from spec_course.
    Raises ValidationError with every field at fault; who may use the course is the
    caller's check (guards)."""
    errors: dict[str, list[str]] = {}
    if spec.course_slug and course is None:
        errors["course"] = [f"Unknown course {spec.course_slug!r}."]
    feedback, tries = _check_rules(spec, errors)
    _check_slots(spec, errors)
    lessons = list(Lesson.objects.filter(slug__in=list(spec.lesson_slugs)))
    missing = sorted(set(spec.lesson_slugs) - {lesson.slug for lesson in lessons})
    if missing:
        errors["lessons"] = [f"Unknown lessons: {', '.join(missing)}."]
    if errors:
        raise ValidationError(errors)
    return CheckedSpec(spec=spec, course=course, lessons=lessons, feedback=feedback, tries=tries)
