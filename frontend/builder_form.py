"""The quiz builder's form: settings, dates and N slots, each slot a pool of templates
ticked in the template library (frontend/queries/builder.py groups and searches it).

The same form creates a draft and edits a quiz; it parses and checks what one field
can, and hands a QuizSpec to the service, which checks the rest.
"""

from __future__ import annotations

from datetime import timedelta

from django import forms

from assess.models import Quiz
from assess.services.quizzes import (
    MAX_ATTEMPTS,
    MAX_POINTS,
    MAX_TIME_LIMIT,
    MAX_TRIES,
    QuizSpec,
    SlotSpec,
)
from problems.engine import registry

DEFAULT_SLOTS = 3
MAX_SLOTS = 12
# What the builder's buttons ask for. A post that names none (a script's) saves; Enter
# in a field sends the form's first button, Filter, which saves nothing.
ACTIONS = ("save", "preview", "add_slot", "filter")
DATETIME_FORMAT = "%Y-%m-%dT%H:%M"


def template_choices() -> list[tuple[str, str]]:
    return [(t.slug, f"{t.slug}: {t.title}") for t in registry.all_templates()]


def _when(label: str, help_text: str) -> forms.DateTimeField:
    return forms.DateTimeField(
        required=False,
        label=label,
        help_text=help_text,
        input_formats=[DATETIME_FORMAT, "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S"],
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format=DATETIME_FORMAT),
    )


class QuizBuilderForm(forms.Form):
    """Quiz settings, its window and N slots, each a pool of templates with points."""

    title = forms.CharField(max_length=200)
    mode = forms.ChoiceField(choices=Quiz.Mode.choices, initial=Quiz.Mode.PRACTICE)
    course = forms.ChoiceField(required=False)
    time_limit_minutes = forms.IntegerField(
        min_value=1,
        max_value=int(MAX_TIME_LIMIT.total_seconds() // 60),
        required=False,
        label="Time limit (minutes)",
        help_text="Leave empty for no time limit.",
    )
    attempts_allowed = forms.IntegerField(
        min_value=1,
        max_value=MAX_ATTEMPTS,
        required=False,
        label="Attempts allowed",
        help_text="Leave empty for unlimited attempts.",
    )
    feedback = forms.ChoiceField(
        required=False,
        choices=[("", "Default for the mode"), *Quiz.Feedback.choices],
        help_text="Practice and homework default to immediate feedback, exams to after "
        "the attempt. “After the quiz closes” needs a close.",
    )
    pass_mark = forms.FloatField(
        min_value=0.0, max_value=1.0, initial=0.5, label="Pass mark (0 to 1)"
    )
    opens_at = _when(
        "Opens (UTC)", "Leave empty to open as soon as it is published. A draft never opens."
    )
    closes_at = _when(
        "Closes (UTC)",
        "No attempt starts, and none takes answers, from then on. Leave empty for never.",
    )
    # Immediate feedback only; the service refuses them with later feedback, where the
    # last saved answer counts and there are no tries to count.
    tries_per_part = forms.IntegerField(
        min_value=1,
        max_value=MAX_TRIES,
        required=False,
        label="Tries per part",
        help_text="Immediate feedback only. Leave empty for the mode's default: 3 for "
        "homework, unlimited for practice.",
    )
    penalty_per_try = forms.FloatField(
        min_value=0.0,
        max_value=1.0,
        required=False,
        label="Penalty per wrong try (0 to 1)",
        help_text="Immediate feedback only: the share of a part's credit lost for each try "
        "before the first correct one. Leave empty for none.",
    )
    hint_penalty = forms.FloatField(
        min_value=0.0,
        max_value=1.0,
        required=False,
        label="Penalty per hint (0 to 1)",
        help_text="Homework only: the share of a part's credit lost for each hint asked "
        "from it. Practice hints are free; exams offer none. Leave empty for none.",
    )

    def __init__(
        self, *args, courses=(), n_slots: int = DEFAULT_SLOTS, staff=False, authored=(), **kwargs
    ):
        super().__init__(*args, **kwargs)
        choices = [(c.slug, c.title) for c in courses]
        if staff:
            choices = [("", "No course (staff only)"), *choices]
        self.fields["course"].choices = choices
        self.n_slots = max(1, min(n_slots, MAX_SLOTS))
        # Published authored templates of the offered courses (slug, title, course); the
        # service holds each to its own course's quizzes.
        pool = template_choices() + [(slug, f"{slug}: {title}") for slug, title, _ in authored]
        for i in range(1, self.n_slots + 1):
            # Rendered by the template library as one checkbox per template and slot.
            self.fields[f"slot{i}_templates"] = forms.MultipleChoiceField(
                choices=pool, required=False, label=f"Slot {i}: templates"
            )
            self.fields[f"slot{i}_points"] = forms.IntegerField(
                min_value=1,
                max_value=MAX_POINTS,
                initial=1,
                required=False,
                label=f"Slot {i}: points",
            )

    def points_fields(self):
        return [self[f"slot{i}_points"] for i in range(1, self.n_slots + 1)]

    def picks(self) -> dict[int, list[str]]:
        """Each slot's ticked templates as the page last sent them (or the quiz being
        edited has them), valid or not: the library shows them ticked again."""
        picks = {}
        for i in range(1, self.n_slots + 1):
            name = f"slot{i}_templates"
            picks[i] = (
                self.data.getlist(name) if self.is_bound else list(self.initial.get(name, ()))
            )
        return picks

    def course_slug(self) -> str | None:
        """The course the library groups by: the one chosen, else the first offered. A
        posted value that is no offered choice counts as none chosen: it is never looked
        up (a NUL in it was a 500 on PostgreSQL, before the form said it was invalid)."""
        value = self.data.get("course") if self.is_bound else self.initial.get("course")
        offered = [str(choice) for choice, _ in self.fields["course"].choices]
        if value is None or str(value) not in offered:
            value = offered[0] if offered else ""
        return value or None

    def clean(self):
        data = super().clean()
        slots = []
        for i in range(1, self.n_slots + 1):
            templates = list(dict.fromkeys(data.get(f"slot{i}_templates") or []))
            if templates:
                slots.append(SlotSpec(templates=templates, points=data.get(f"slot{i}_points") or 1))
        if not slots and not self.errors:
            raise forms.ValidationError("Pick at least one template for at least one slot.")
        data["slots"] = slots
        return data

    def to_spec(self, *, lesson_slugs=()) -> QuizSpec:
        d = self.cleaned_data
        minutes = d.get("time_limit_minutes")
        return QuizSpec(
            title=d["title"],
            mode=d["mode"],
            slots=d["slots"],
            course_slug=d.get("course") or None,
            lesson_slugs=tuple(lesson_slugs),
            time_limit=timedelta(minutes=minutes) if minutes else None,
            attempts_allowed=d.get("attempts_allowed"),
            feedback=d.get("feedback") or None,
            opens_at=d.get("opens_at"),
            closes_at=d.get("closes_at"),
            pass_mark=d["pass_mark"],
            tries_per_part=d.get("tries_per_part"),
            penalty_per_try=d.get("penalty_per_try") or 0.0,
            hint_penalty=d.get("hint_penalty") or 0.0,
        )

    def add_service_errors(self, message_dict: dict[str, list[str]]) -> None:
        """Errors from the service, on the field they name (slots and others on top)."""
        names = {"time_limit": "time_limit_minutes"}
        for field, messages in message_dict.items():
            field = names.get(field, field)
            target = field if field in self.fields else None
            for message in messages:
                self.add_error(target, message)


def initial_of(quiz: Quiz) -> tuple[dict, int]:
    """(initial data, number of slots) to edit the quiz with the builder."""
    slots = list(quiz.slots.order_by("order"))
    initial = {
        "title": quiz.title,
        "mode": quiz.mode,
        "course": quiz.course.slug if quiz.course else "",
        "time_limit_minutes": int(quiz.time_limit.total_seconds() // 60)
        if quiz.time_limit
        else None,
        "attempts_allowed": quiz.attempts_allowed,
        "feedback": quiz.feedback,
        "pass_mark": quiz.pass_mark,
        "opens_at": quiz.opens_at,
        "closes_at": quiz.closes_at,
        "tries_per_part": quiz.tries_per_part,
        "penalty_per_try": quiz.penalty_per_try or None,
        "hint_penalty": quiz.hint_penalty or None,
    }
    for i, slot in enumerate(slots, start=1):
        initial[f"slot{i}_templates"] = list(slot.templates)
        initial[f"slot{i}_points"] = slot.points
    return initial, max(len(slots), 1)


def builder_action(post) -> str:
    """Which button sent the form: the first of ACTIONS it names, else save."""
    return next((a for a in ACTIONS if a in post), "save")
