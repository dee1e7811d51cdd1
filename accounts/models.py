"""What the accounts app stores beside django-allauth's own tables.

An account made by self sign-up carries a SignUp row until (and after) its email address
is confirmed; every other account (made by staff, a command such as load_demo, an
organisation's single sign-on or an LMS launch, or existing before sign-up) has none and
counts as confirmed. So the exam gate (accounts.selectors.email_confirmed) asks one
question of one table, and no road that makes accounts can forget to mark them.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class SignUp(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sign_up"
    )
    created_at = models.DateTimeField(default=timezone.now)
    confirmed_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When the account first confirmed an email address by its link; "
        "empty: not yet, so it may practise but not start an exam or a certification.",
    )

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        state = "confirmed" if self.confirmed_at else "unconfirmed"
        return f"{self.user} signed up ({state})"


class Erasure(models.Model):
    """An account whose owner (or staff) deleted it: its row stays, anonymised in place
    (privacy.erasure), so the answers it gave still count in item statistics
    and the decisions and certificates that point at it stay whole. Pages that would
    name the person (a certificate's public page) say "a deleted account" instead."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="erasure"
    )
    erased_at = models.DateTimeField(default=timezone.now)
    by_staff = models.BooleanField(
        default=False, help_text="Staff deleted it (the admin); otherwise its owner did."
    )

    def __str__(self) -> str:
        return f"{self.user} erased {self.erased_at:%Y-%m-%d}"
