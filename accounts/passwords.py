"""A password change revokes the user's API tokens, whichever road changed it.

Django calls `password_changed(password, user)` on every validator in
AUTH_PASSWORD_VALIDATORS from AbstractBaseUser.save() whenever set_password() was called
before that save (django.contrib.auth.base_user; password_validation.password_changed).
Every road that sets a new password goes through set_password() and save(): the reset
page (SetPasswordForm), the admin's own change page (PasswordChangeForm) and its
change-password form for another user (AdminPasswordChangeForm), `manage.py
changepassword`, code, and sign-up libraries such as django-allauth (its adapter's
set_password). So one validator is the one place, and no road can forget to call it.

A sign-in that re-hashes the password under a newer hasher is not a change: Django
clears the raw password before that save (check_password's setter), so tokens stay.
Creating a user with a password calls it too, and revokes nothing (there is no token).
"""

from __future__ import annotations

from accounts.tokens import tokens_revoke_for_password_change


class RevokeTokensOnPasswordChange:
    """Listed in AUTH_PASSWORD_VALIDATORS for its `password_changed` hook; it refuses no
    password. Its help text tells the person what a change does to their tokens."""

    def validate(self, password, user=None) -> None:
        return None

    def password_changed(self, password, user=None) -> None:
        if user is not None and user.pk is not None:
            tokens_revoke_for_password_change(user=user)

    def get_help_text(self) -> str:
        return "Changing your password signs out your API tokens; sign in again for a new one."
