"""The site's allauth account adapter: accounts' own, plus what an invitation changes.

An invitation's link opens sign-up even where SIGNUP_OPEN is off, and the invited
address counts as confirmed (the link arrived by mail to it). The rule lives here, in the
app that knows invitations, extending accounts' adapter, so that accounts (below this app
in the layers) knows nothing of invitations; settings.ACCOUNT_ADAPTER names this class.
"""

from __future__ import annotations

from django.conf import settings

from accounts.adapters import AccountAdapter as BaseAccountAdapter
from invitations.selectors import invitation_for_sign_up


class AccountAdapter(BaseAccountAdapter):
    def is_open_for_signup(self, request) -> bool:
        """Open unless SIGNUP_OPEN is off; always open to someone signing up from an
        invitation's link (invitations.views.invitation_sign_up)."""
        if getattr(settings, "SIGNUP_OPEN", True):
            return True
        return invitation_for_sign_up(request) is not None

    def is_email_verified(self, request, email: str) -> bool:
        """A sign-up from an invitation's link, with the invited address: that address
        is confirmed, since the link arrived by mail to it (allauth then marks the new
        account's address verified, and accounts.receivers records the sign-up as
        confirmed). Any other address is confirmed by its own link, as ever."""
        invitation = invitation_for_sign_up(request)
        if invitation is not None and invitation.email == (email or "").lower():
            return True
        return super().is_email_verified(request, email)
