"""The account forms that are ours: allauth's sign-in form with a plain label, and the
company sign-in (a work address, to find its organisation's provider)."""

from __future__ import annotations

from allauth.account.forms import LoginForm
from django import forms
from django.core.validators import MaxLengthValidator

MAX_EMAIL = 254


class SignInForm(LoginForm):
    """allauth's form (field `login`: a username or an email address), labelled for
    people and bounded like the addresses it may hold."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        field = self.fields["login"]
        field.label = "Username or email"
        field.max_length = MAX_EMAIL
        field.validators.append(MaxLengthValidator(MAX_EMAIL))
        field.widget.attrs.update(
            {"autocomplete": "username", "maxlength": str(MAX_EMAIL), "placeholder": ""}
        )
        self.fields["password"].widget.attrs["placeholder"] = ""


class CompanySignInForm(forms.Form):
    email = forms.EmailField(
        label="Work email",
        max_length=MAX_EMAIL,
        help_text="Your organisation's address: it says which identity provider to use.",
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
