"""The one authentication backend: allauth's (a username or an email address, with the
password), refusing the members of an organisation that requires single sign-on.

Every password road authenticates here: the sign-in page, re-authentication, the admin's
login and POST /api/auth/token/. A member of such an organisation is refused with a
ValidationError that says what to do instead; Django's authenticate() lets it through
(it catches only PermissionDenied), so the form, or the token endpoint's serializer,
shows it as its error (code `authorization`, the token endpoint's documented code).

The refusal is said only once the password is right, or to an account that has no
password at all (made by single sign-on): a wrong password for a password account is the
usual "not correct", so the message tells a guesser nothing about who belongs where.
"""

from __future__ import annotations

from allauth.account.auth_backends import AuthenticationBackend
from django.core.exceptions import ValidationError

from orgs.sso import password_refusal


class PasswordBackend(AuthenticationBackend):
    def _check_password(self, user, password):
        accepted = super()._check_password(user, password)
        if user is not None and (accepted is not None or not user.has_usable_password()):
            refusal = password_refusal(user=user)
            if refusal is not None:
                raise ValidationError(refusal, code="authorization")
        return accepted
