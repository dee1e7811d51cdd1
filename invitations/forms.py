"""The bulk invitation form: pasted addresses, a CSV file, or both. Reading the rows is
invitations.rows' (pure); a bad row is not a form error here but a named row on the
page, since the service refuses the whole list for it."""

from __future__ import annotations

from django import forms

from invitations.rows import (
    MAX_CSV_BYTES,
    MAX_ROWS,
    Unreadable,
    rows_from_csv,
    rows_from_text,
    rows_marked,
)


class InviteForm(forms.Form):
    addresses = forms.CharField(
        label="Email addresses",
        required=False,
        max_length=20_000,
        widget=forms.Textarea(attrs={"rows": 4, "autocomplete": "off", "spellcheck": "false"}),
        help_text=f"One or more, separated by new lines, commas or spaces (at most {MAX_ROWS}).",
    )
    csv_file = forms.FileField(
        label="Or a CSV file",
        required=False,
        help_text="An <code>email</code> column (or addresses in the first column), UTF-8.",
    )

    def clean(self):
        data = super().clean()
        text, upload = data.get("addresses") or "", data.get("csv_file")
        if not text.strip() and upload is None:
            raise forms.ValidationError("Paste at least one address or choose a CSV file.")
        rows = []
        try:
            if text.strip():
                rows += rows_from_text(text)
            if upload is not None:
                rows += rows_from_csv(upload.read(MAX_CSV_BYTES + 1))
        except Unreadable as err:
            raise forms.ValidationError(str(err)) from None
        if len(rows) > MAX_ROWS:
            raise forms.ValidationError(f"At most {MAX_ROWS} addresses at once.")
        data["rows"] = rows_marked(rows)
        return data
