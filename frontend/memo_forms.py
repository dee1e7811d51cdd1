"""Forms of the capstone pages: the memo text, and an instructor's decision.

They only parse what a page posts; the services decide (memo_submit, memo_decide) and
their InvalidInput names the field at fault, which `add_service_error` puts back beside
the input it belongs to.
"""

from __future__ import annotations

from django import forms

from capstone.models import MemoDecision
from capstone.services import MAX_MEMO_CHARS


class MemoForm(forms.Form):
    # Neither required nor stripped here: the service's own message for an empty memo
    # is the one shown, and the text is stored exactly as typed.
    markdown = forms.CharField(
        required=False,
        strip=False,
        label="Your memo (Markdown)",
        help_text="Use the ## sections of the brief and end with the Key figures list. "
        f"At most {MAX_MEMO_CHARS:,} characters.",
        widget=forms.Textarea(attrs={"rows": 28, "cols": 80, "spellcheck": "true"}),
    )

    def add_service_error(self, err) -> None:
        self.add_error("markdown" if getattr(err, "field", None) == "markdown" else None, str(err))


class DecisionForm(forms.Form):
    """Approve or request changes, a comment, and per criterion an optional new score
    with the reason for it. `version` is the number the instructor was looking at, so a
    version submitted meanwhile is never decided on unseen."""

    decision = forms.ChoiceField(
        choices=MemoDecision.Decision.choices, widget=forms.RadioSelect, label="Decision"
    )
    comment = forms.CharField(
        required=False,
        label="Comment to the learner",
        widget=forms.Textarea(attrs={"rows": 5, "cols": 70}),
    )
    version = forms.IntegerField(widget=forms.HiddenInput)

    def __init__(self, *args, criteria=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.criteria = list(criteria)
        for i, c in enumerate(self.criteria):
            title = c.get("title") or c["code"]
            self.fields[f"c{i}_points"] = forms.FloatField(
                required=False,
                min_value=0,
                max_value=float(c["max_points"]),
                label=f"{title}: adjusted points (0 to {float(c['max_points']):g})",
                widget=forms.NumberInput(attrs={"step": "any", "inputmode": "decimal"}),
            )
            self.fields[f"c{i}_comment"] = forms.CharField(
                required=False,
                max_length=2000,
                label=f"{title}: why",
                widget=forms.TextInput(attrs={"size": 40}),
            )

    def criterion_fields(self):
        return [
            (c, self[f"c{i}_points"], self[f"c{i}_comment"]) for i, c in enumerate(self.criteria)
        ]

    def clean(self):
        data = super().clean()
        for i, _c in enumerate(self.criteria):
            points = data.get(f"c{i}_points")
            if points is not None and not (data.get(f"c{i}_comment") or "").strip():
                self.add_error(f"c{i}_comment", "Say why the points changed.")
        return data

    def adjustments(self) -> list[dict]:
        out = []
        for i, c in enumerate(self.criteria):
            points = self.cleaned_data.get(f"c{i}_points")
            if points is not None:
                comment = self.cleaned_data.get(f"c{i}_comment", "")
                out.append({"criterion": c["code"], "points": points, "comment": comment})
        return out

    def add_service_error(self, err) -> None:
        """The service's field (`decision`, `adjustments.N[.points|.comment]`) mapped back
        to this form's input for the Nth adjusted criterion."""
        field = getattr(err, "field", None) or ""
        target = None
        if field in ("decision", "comment"):
            target = field
        elif field.startswith("adjustments."):
            parts = field.split(".")
            adjusted = [
                i
                for i, _c in enumerate(self.criteria)
                if self.cleaned_data.get(f"c{i}_points") is not None
            ]
            if parts[1].isdigit() and int(parts[1]) < len(adjusted):
                i = adjusted[int(parts[1])]
                target = f"c{i}_comment" if parts[-1] == "comment" else f"c{i}_points"
        self.add_error(target, str(err))
