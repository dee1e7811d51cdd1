"""Forms: parse and check what a page posts, then hand a plain value to one service."""

from __future__ import annotations

from datetime import timedelta

from django import forms

from assess.services import practice_sessions
from frontend.builder_form import template_choices
from frontend.queries.hardware import PRECISION_ORDER
from hardware_db import catalog


class EnrolmentForm(forms.Form):
    """An instructor adds a learner to their course by username."""

    username = forms.CharField(max_length=150, label="Username")


class PreviewForm(forms.Form):
    # A slug typed (the library shows each template's), not a menu of every template:
    # a select of the whole library weighed more than the rest of the builder's form.
    template = forms.ChoiceField(
        label="Template to preview (its slug)",
        widget=forms.TextInput(
            attrs={"placeholder": "weights-memory", "autocomplete": "off", "spellcheck": "false"}
        ),
        error_messages={"invalid_choice": "No template has the slug %(value)s."},
    )

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


class ExtensionForm(forms.Form):
    """An instructor's extension for one learner of a quiz, from its gradebook row:
    extra minutes on the time limit, a later close, or both (the service checks the
    rest: the learner enrolled, the quiz has a limit or a close to extend, nobody
    extends their own work). The close is read as UTC, as the label says."""

    learner = forms.CharField(max_length=150, widget=forms.HiddenInput)
    extra_minutes = forms.IntegerField(
        min_value=1, max_value=7 * 24 * 60, required=False, label="Extra minutes"
    )
    closes_at = forms.DateTimeField(
        required=False,
        label="New close (UTC)",
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"],
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
    )

    def clean(self):
        data = super().clean()
        if not self.errors and data.get("extra_minutes") is None and data.get("closes_at") is None:
            raise forms.ValidationError("Give extra minutes, a new close, or both.")
        return data

    def said(self) -> list[str]:
        """The errors as sentences for the page's messages, each naming its field."""
        return [
            f"{self.fields[name].label}: {error}" if name in self.fields else error
            for name, errors in self.errors.items()
            for error in errors
        ]

    def grant_kwargs(self) -> dict:
        minutes = self.cleaned_data["extra_minutes"]
        return {
            "extra_time": timedelta(minutes=minutes) if minutes else None,
            "closes_at": self.cleaned_data["closes_at"],
        }
