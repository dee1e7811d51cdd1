"""The form of an organisation's single sign-on page: what staff (or a manager staff
allow) type from their identity provider's console."""

from __future__ import annotations

import re

from django import forms

from orgs.sso import ProviderSettings


class IdentityProviderForm(forms.Form):
    issuer = forms.CharField(
        label="Issuer",
        max_length=500,
        help_text="The provider's issuer, as its discovery document names it: "
        "https://login.example.com/realms/acme, https://acme.okta.com, "
        "https://login.microsoftonline.com/TENANT/v2.0.",
        widget=forms.URLInput(attrs={"autocomplete": "off"}),
    )
    client_id = forms.CharField(label="Client id", max_length=191)
    client_secret = forms.CharField(
        label="Client secret",
        max_length=191,
        required=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}, render_value=False),
        help_text="Required the first time; leave it empty to keep the stored one.",
    )
    domains = forms.CharField(
        label="Email domains",
        max_length=4000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="One per line (or separated by commas): the addresses the provider may "
        "sign in here, such as example.com. A domain belongs to one organisation.",
    )
    required = forms.BooleanField(
        label="Members must sign in through the provider (their passwords stop working)",
        required=False,
    )

    def settings(self) -> ProviderSettings:
        data = self.cleaned_data
        return ProviderSettings(
            issuer=data["issuer"],
            client_id=data["client_id"],
            client_secret=data["client_secret"],
            domains=tuple(d for d in re.split(r"[\s,;]+", data["domains"]) if d),
            required=data["required"],
        )
