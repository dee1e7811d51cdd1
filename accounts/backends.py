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

import functools

from allauth.account.auth_backends import AuthenticationBackend
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import connection

from api_common.rows import Columns, fetch
from orgs.sso import password_refusal


@functools.cache  # built at first use, once the apps are loaded
def _user_read() -> tuple[Columns, str]:
    """The signed-in user's row by primary key, as SQL: every signed-in request reads it
    (django.contrib.auth.get_user), and the ORM's `get(pk=...)` cost 0.35 ms of CPU,
    0.2 ms of it building the query (bench/README.md, the web-page exam)."""
    model = get_user_model()
    columns, quote = Columns(model, "u"), connection.ops.quote_name
    table, pk = quote(model._meta.db_table), quote(model._meta.pk.column)
    return columns, f"SELECT {columns.sql} FROM {table} u WHERE u.{pk} = %s"  # noqa: S608


class PasswordBackend(AuthenticationBackend):
    def get_user(self, user_id):
        """ModelBackend's: the user, if it exists and may sign in (is active); read in one
        statement (tests/accounts/test_request_reads.py holds it to the ORM's)."""
        columns, sql = _user_read()
        rows = fetch(sql, [user_id])
        if not rows:
            return None
        user = columns.load(rows[0])
        return user if self.user_can_authenticate(user) else None

    def _check_password(self, user, password):
        accepted = super()._check_password(user, password)
        if user is not None and (accepted is not None or not user.has_usable_password()):
            refusal = password_refusal(user=user)
            if refusal is not None:
                raise ValidationError(refusal, code="authorization")
        return accepted
