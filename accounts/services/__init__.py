"""Writes about accounts: a sign-up's record and its confirmation, and the allauth email
row of an account made outside allauth."""

from __future__ import annotations

from allauth.account.models import EmailAddress
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import SignUp

# Set on a user object by the allauth adapters while allauth is making the account: it
# writes the account's EmailAddress rows itself (unverified for a sign-up, as the
# provider says for single sign-on), so email_address_adopt leaves them alone.
ALLAUTH_SETS_UP_EMAIL = "_allauth_sets_up_email"


def sign_up_record(*, user, confirmed: bool) -> SignUp:
    """A self sign-up: unconfirmed unless its address was proven already (an
    invitation's link carries a verified address, so allauth marks it verified)."""
    sign_up, _ = SignUp.objects.get_or_create(
        user=user, defaults={"confirmed_at": timezone.now() if confirmed else None}
    )
    return sign_up


def sign_up_confirm(*, user) -> bool:
    """The account confirmed an address by its link: it may now start exams. True if
    this was its first confirmation."""
    return bool(
        SignUp.objects.filter(user=user, confirmed_at__isnull=True).update(
            confirmed_at=timezone.now()
        )
    )


def email_address_adopt(*, user) -> EmailAddress | None:
    """The account was made or edited outside allauth (staff in the admin, a command, an
    LMS launch, code): its address becomes allauth's row, primary, as user.email is.
    Verified when the account has a password someone set (staff and commands vouch for
    the address they typed); unverified when it has none (an LMS launch: the platform's
    address is its claim, never an identity here, lti.services). Without a row allauth's
    email page would add one on its first GET. Nothing when the user has no address,
    already has this one, or another account holds it verified (allauth's one verified
    owner; staff sort that out). The exam gate reads SignUp, not these rows."""
    email = (user.email or "").strip().lower()
    if not email or getattr(user, ALLAUTH_SETS_UP_EMAIL, False):
        return None
    if EmailAddress.objects.filter(user=user, email__iexact=email).exists():
        return None
    if EmailAddress.objects.filter(email__iexact=email, verified=True).exists():
        return None
    try:
        with transaction.atomic():
            EmailAddress.objects.filter(user=user, primary=True).update(primary=False)
            return EmailAddress.objects.create(
                user=user, email=email, verified=user.has_usable_password(), primary=True
            )
    except IntegrityError:  # a racing save made it first
        return None
