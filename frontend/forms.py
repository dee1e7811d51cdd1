"""Forms: parse and check what a page posts, then hand a plain value to one service."""

from __future__ import annotations

from datetime import timedelta

from django import forms

from assess.models import Quiz
from assess.services import practice_sessions
from assess.services.quizzes import MAX_TRIES, QuizSpec, SlotSpec
from frontend.queries.hardware import PRECISION_ORDER
from hardware_db import catalog
from problems.engine import registry

DEFAULT_SLOTS = 3
MAX_SLOTS = 12


def template_choices() -> list[tuple[str, str]]:
    return [(t.slug, f"{t.slug}: {t.title}") for t in registry.all_templates()]


class QuizBuilderForm(forms.Form):
    """Quiz settings and N slots, each a multi-select pool of templates with points."""

    title = forms.CharField(max_length=200)
    mode = forms.ChoiceField(choices=Quiz.Mode.choices, initial=Quiz.Mode.PRACTICE)
    course = forms.ChoiceField(required=False)
    time_limit_minutes = forms.IntegerField(
        min_value=1,
        max_value=24 * 60,
        required=False,
        label="Time limit (minutes)",
        help_text="Leave empty for no time limit.",
    )
    attempts_allowed = forms.IntegerField(
        min_value=1,
        max_value=100,
        required=False,
        label="Attempts allowed",
        help_text="Leave empty for unlimited attempts.",
    )
    feedback = forms.ChoiceField(
        required=False,
        choices=[("", "Default for the mode"), *Quiz.Feedback.choices],
        help_text="Practice and homework default to immediate feedback, exams to after "
        "the attempt.",
    )
    pass_mark = forms.FloatField(
        min_value=0.0, max_value=1.0, initial=0.5, label="Pass mark (0 to 1)"
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

    def __init__(self, *args, courses=(), n_slots: int = DEFAULT_SLOTS, staff=False, **kwargs):
        super().__init__(*args, **kwargs)
        choices = [(c.slug, c.title) for c in courses]
        if staff:
            choices = [("", "No course (staff only)"), *choices]
        self.fields["course"].choices = choices
        self.n_slots = max(1, min(n_slots, MAX_SLOTS))
        pool = template_choices()
        for i in range(1, self.n_slots + 1):
            self.fields[f"slot{i}_templates"] = forms.MultipleChoiceField(
                choices=pool,
                required=False,
                label=f"Slot {i}: templates",
                help_text="Each attempt draws one of the selected templates for this slot. "
                "Hold Ctrl (or Cmd) to select several.",
                widget=forms.SelectMultiple(attrs={"size": 8}),
            )
            self.fields[f"slot{i}_points"] = forms.IntegerField(
                min_value=1, max_value=100, initial=1, required=False, label=f"Slot {i}: points"
            )

    def slot_fields(self):
        return [
            (i, self[f"slot{i}_templates"], self[f"slot{i}_points"])
            for i in range(1, self.n_slots + 1)
        ]

    def clean(self):
        data = super().clean()
        slots = []
        for i in range(1, self.n_slots + 1):
            templates = data.get(f"slot{i}_templates") or []
            if templates:
                slots.append(SlotSpec(templates=templates, points=data.get(f"slot{i}_points") or 1))
        if not slots and not self.errors:
            raise forms.ValidationError("Pick at least one template for at least one slot.")
        data["slots"] = slots
        return data

    def to_spec(self) -> QuizSpec:
        d = self.cleaned_data
        minutes = d.get("time_limit_minutes")
        return QuizSpec(
            title=d["title"],
            mode=d["mode"],
            slots=d["slots"],
            course_slug=d.get("course") or None,
            time_limit=timedelta(minutes=minutes) if minutes else None,
            attempts_allowed=d.get("attempts_allowed"),
            feedback=d.get("feedback") or None,
            pass_mark=d["pass_mark"],
            tries_per_part=d.get("tries_per_part"),
            penalty_per_try=d.get("penalty_per_try") or 0.0,
        )

    def add_service_errors(self, message_dict: dict[str, list[str]]) -> None:
        """Errors from quiz_create, on the field they name (slots and others on top)."""
        for field, messages in message_dict.items():
            target = field if field in self.fields else None
            for message in messages:
                self.add_error(target, message)


class EnrolmentForm(forms.Form):
    """An instructor adds a learner to their course by username."""

    username = forms.CharField(max_length=150, label="Username")


class PreviewForm(forms.Form):
    template = forms.ChoiceField(label="Template to preview")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["template"].choices = template_choices()


def accelerator_choices() -> list[tuple[str, str]]:
    return [(a.slug, f"{a.vendor} {a.name}") for a in catalog.accelerators()]


class CompareForm(forms.Form):
    a = forms.ChoiceField(label="First accelerator")
    b = forms.ChoiceField(label="Second accelerator")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["a"].choices = self.fields["b"].choices = accelerator_choices()


def precision_choices() -> list[tuple[str, str]]:
    seen = {p for a in catalog.accelerators() for p in a.dense_flops}
    ordered = [p for p in PRECISION_ORDER if p in seen] + sorted(seen - set(PRECISION_ORDER))
    return [(p, p.upper()) for p in ordered]


class RooflineForm(forms.Form):
    accelerator = forms.ChoiceField()
    precision = forms.ChoiceField(help_text="Dense peak throughput at this precision.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["accelerator"].choices = accelerator_choices()
        self.fields["precision"].choices = precision_choices()

    def clean(self):
        data = super().clean()
        slug, precision = data.get("accelerator"), data.get("precision")
        if slug and precision and precision not in catalog.accelerator(slug).dense_flops:
            have = ", ".join(p.upper() for p in catalog.accelerator(slug).dense_flops)
            self.add_error("precision", f"No published {precision.upper()} peak; it has {have}.")
        return data


class PracticeSessionForm(forms.Form):
    """How many questions a new lesson practice session holds (lesson page, summary)."""

    questions = forms.TypedChoiceField(
        choices=[(n, f"{n} questions") for n in practice_sessions.LENGTHS],
        coerce=int,
        initial=practice_sessions.DEFAULT_LENGTH,
        label="Session length",
        error_messages={
            "invalid_choice": "A practice session has "
            + ", ".join(map(str, practice_sessions.LENGTHS[:-1]))
            + f" or {practice_sessions.LENGTHS[-1]} questions."
        },
    )
