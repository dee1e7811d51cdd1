"""Reads about accounts: whether one's email is confirmed (the exam gate), which account
a typed identifier names (the sign-in throttles' key), and how this session signed in."""

from __future__ import annotations

import functools
import time

from allauth.account.authentication import get_authentication_records
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core.exceptions import ObjectDoesNotExist
from django.db import connection

from accounts.models import SignUp
from api_common.rows import fetch


@functools.cache  # built at first use, once the apps are loaded
def unconfirmed_sql() -> str:
    """SQL for "this account has a sign-up still unconfirmed", taking the user's id as
    its one parameter: the rule email_confirmed reads, and which the start's quiz gate
    reads in its own statement (assess.selectors.quiz_rows.quiz_get_for_start).

    Written as SQL: every start of an exam asks it (the burst of starts when an exam
    opens), and the ORM's `exists()` cost 0.7 ms to build for a primary-key lookup
    (bench/README.md, exam openings in bursts)."""
    meta, quote = SignUp._meta, connection.ops.quote_name
    user, confirmed = (quote(meta.get_field(n).column) for n in ("user", "confirmed_at"))
    table = quote(meta.db_table)
    return f"EXISTS (SELECT 1 FROM {table} WHERE {user} = %s AND {confirmed} IS NULL)"  # noqa: S608


def email_confirmed(*, user) -> bool:
    """False only for an account made by sign-up whose email is not confirmed yet; every
    other account (staff, load_demo, single sign-on, LTI, older accounts) is confirmed.
    One indexed read: no SignUp row, or one with confirmed_at set."""
    ((unconfirmed,),) = fetch(f"SELECT {unconfirmed_sql()}", [user.pk])
    return not unconfirmed


def is_erased(user) -> bool:
    """Was the account deleted (anonymised in place, privacy.erasure)? Free
    when the caller selected `erasure` with the user (select_related("holder__erasure"))."""
    try:
        return user.erasure is not None
    except ObjectDoesNotExist:
        return False


def account_id_for(identifier: str) -> int | None:
    """The id of the one account `identifier` names, as the sign-in form reads it (a
    username, else an email address, case ignored), or None when it names none (or,
    for an address two accounts share, more than one)."""
    users = get_user_model().objects
    ids = list(users.filter(username__iexact=identifier).values_list("pk", flat=True)[:2])
    if not ids and "@" in identifier:
        ids = list(
            EmailAddress.objects.filter(email__iexact=identifier)
            .values_list("user_id", flat=True)
            .distinct()[:2]
        ) or list(users.filter(email__iexact=identifier).values_list("pk", flat=True)[:2])
    return ids[0] if len(ids) == 1 else None


def single_sign_on_at(request, *, provider_id: str | None = None) -> float | None:
    """When this session's user last signed in through single sign-on (a Unix time),
    through `provider_id` if given; None if they did not (a password sign-in)."""
    records = get_authentication_records(request, request.user)
    times = [
        r.get("at", 0.0)
        for r in records
        if r.get("method") == "socialaccount"
        and (provider_id is None or r.get("provider") == provider_id)
    ]
    return max(times, default=None)


def signed_in_by_sso_within(request, seconds: float, *, provider_id: str | None = None) -> bool:
    at = single_sign_on_at(request, provider_id=provider_id)
    return at is not None and time.time() - at <= seconds
