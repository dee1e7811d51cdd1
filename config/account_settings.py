"""Account settings: django-allauth's account and socialaccount apps (accounts/), read by
config.settings. Every value here is what the site needs, not allauth's default where
they differ; each says why.

Sign-up is open unless `SIGNUP_OPEN=0` (a closed deployment: accounts come from staff, an
organisation's single sign-on, an LMS launch). An account made by sign-up signs in and
practises at once; its email address is confirmed by a link, and until it is the account
cannot start an exam or a certification (assess.services.attempts, accounts.selectors).
"""

from __future__ import annotations

import os


def _env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on"}


# Self sign-up (accounts.adapters.AccountAdapter.is_open_for_signup). Organisations'
# single sign-on and LMS launches make accounts whatever this says.
SIGNUP_OPEN = _env_bool("SIGNUP_OPEN", True)

AUTHENTICATION_BACKENDS = [
    # allauth's backend (a username or an email address, with the password), refusing
    # members of an organisation that requires single sign-on (accounts/backends.py).
    # The only backend: the token endpoint, the admin's login and the sign-in page all
    # authenticate through it.
    "accounts.backends.PasswordBackend",
]

ACCOUNT_ADAPTER = "invitations.adapters.AccountAdapter"  # accounts' adapter, plus invitations
SOCIALACCOUNT_ADAPTER = "accounts.adapters.SocialAccountAdapter"
ACCOUNT_FORMS = {"login": "accounts.forms.SignInForm"}
ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "username*", "password1*", "password2*"]
ACCOUNT_UNIQUE_EMAIL = True
# "optional": a new account signs in at once and confirms by the link when it likes;
# the exam gate, not the sign-in, waits for it.
ACCOUNT_EMAIL_VERIFICATION = "optional"
# Confirming is a POST from the page the link opens: a GET writes nothing (mail
# scanners follow links) and the access matrix's read sweep holds every GET to that.
ACCOUNT_CONFIRM_EMAIL_ON_GET = False
# Confirmation keys are signed (HMAC), not rows: nothing is stored until confirmed.
ACCOUNT_EMAIL_CONFIRMATION_HMAC = True
ACCOUNT_EMAIL_CONFIRMATION_EXPIRE_DAYS = 3
# One address per account; a change is confirmed by a link to the new address before
# it replaces the old.
ACCOUNT_CHANGE_EMAIL = True
# Mail the account's address when its password or email changes.
ACCOUNT_EMAIL_NOTIFICATIONS = True
# Sign-up and reset pages never say whether an address has an account; mail goes only
# to addresses that have one.
ACCOUNT_PREVENT_ENUMERATION = True
ACCOUNT_EMAIL_UNKNOWN_ACCOUNTS = False
ACCOUNT_EMAIL_SUBJECT_PREFIX = "Burn-in: "
# Django's database sessions, their read on every request written as SQL.
SESSION_ENGINE = "accounts.session_store"
# Sessions last SESSION_COOKIE_AGE, as before allauth (no "remember me" box).
ACCOUNT_SESSION_REMEMBER = True
ACCOUNT_LOGOUT_ON_PASSWORD_CHANGE = False
# Re-authentication (where allauth asks for it) is by password only: no code by mail.
ACCOUNT_REAUTHENTICATION_METHODS = ("password",)
ACCOUNT_LOGIN_ON_PASSWORD_RESET = False
ACCOUNT_DEFAULT_HTTP_PROTOCOL = "http" if _env_bool("DEBUG", True) else "https"
# The credential forms (sign-in, sign-up, reset, password change, re-authentication)
# are throttled by api_common/throttles.py, one budget with the token endpoint and the
# admin's login; allauth keeps only its mail cooldowns (one confirmation mail per
# address per three minutes, the email page's changes per user).
ACCOUNT_RATE_LIMITS = {
    "change_password": None,
    "reset_password": None,
    "reset_password_from_key": None,
    "reauthenticate": None,
    "signup": None,
    "login": None,
    "login_failed": None,
    "manage_email": "10/m/user",
    "confirm_email": "1/180s/key",
}

# Single sign-on: every organisation's identity provider is one SocialApp of the
# `openid_connect` provider (orgs.models.IdentityProvider), registered on /orgs/.../sso/.
# A first sign-in makes the account (no form: the provider's verified email and name);
# an address that already has an account here is never joined to it by email (a
# provider could claim any address): that person signs in and connects on
# /accounts/3rdparty/.
SOCIALACCOUNT_AUTO_SIGNUP = True
SOCIALACCOUNT_EMAIL_AUTHENTICATION = False
SOCIALACCOUNT_EMAIL_AUTHENTICATION_AUTO_CONNECT = False
SOCIALACCOUNT_EMAIL_VERIFICATION = "none"
SOCIALACCOUNT_LOGIN_ON_GET = False
SOCIALACCOUNT_STORE_TOKENS = False
SOCIALACCOUNT_REQUESTS_TIMEOUT = 5
SOCIALACCOUNT_PROVIDERS = {"openid_connect": {"OAUTH_PKCE_ENABLED": True}}
