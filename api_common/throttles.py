"""Sign-in, sign-up and password-reset throttling: DRF throttles on Django's cache, one
implementation for the token endpoint (a DRF view) and the account pages (Django views:
sign-in, the admin's login, sign-up, password reset, change and re-authentication).

Every POST counts, whatever its outcome, in a sliding window per account (whichever of
its username or email address was typed; AccountThrottle) and per client IP, and
sign-ups per client IP; past the limit the answer is 429 with a Retry-After header in
seconds, and the account pages' 429 is a page in the site's layout (429.html). The rates live in
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] under the scopes below and take a multiplier,
"10/15m" being 10 requests per 15 minutes (DRF's own parse_rate reads only the first
letter of the period and would take that as 10 per minute).

The client IP is DRF's `get_ident`: REMOTE_ADDR, or with REST_FRAMEWORK["NUM_PROXIES"]
= N the address N hops back in X-Forwarded-For (set it to the number of proxies in front,
or the per-IP limit either counts the proxy as one client or trusts a forged header).
The counters live in the default cache: with several processes (gunicorn workers) they
are shared only when CACHE_URL names a shared cache such as Redis. While that cache
cannot be reached (Redis refusing or not answering), each process counts in its own
memory (FALLBACK_COUNTS) with the same rates, so the limits still hold, per process
(with W workers a guesser gets at most W times the budget), instead of lifting; once
the cache answers again the counts are its own (the fallback's are not carried over).

The capstone's live preview is throttled the same way, per signed-in user
(MemoPreviewThrottle, scope "memo_preview"); its view answers a refusal with its own 429
(the preview's fragment, or the writing page with the learner's text kept) through
refused_for, with the same Retry-After.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import math
import re
import unicodedata

from django.conf import settings
from django.core.cache.backends.locmem import LocMemCache
from django.http import HttpResponse
from django.shortcuts import render
from django.utils.module_loading import import_string
from redis.exceptions import RedisError
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

log = logging.getLogger(__name__)

_RATE = re.compile(r"^\s*(\d+)\s*/\s*(\d*)\s*(s|sec|m|min|h|hour|d|day)\s*$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}

# This process's counts while the shared cache is unreachable. Bounded: past MAX_ENTRIES
# the oldest third is dropped, so a flood of invented usernames costs memory, not a crash.
FALLBACK_COUNTS = LocMemCache("sign-in-throttle-fallback", {"OPTIONS": {"MAX_ENTRIES": 20_000}})
CACHE_ERRORS = (RedisError, OSError)
MAX_IDENTIFIER = 254  # an email address's longest; usernames are 150


def parse_rate(rate: str) -> tuple[int, int]:
    """Read a rate: "10/15m" is (10, 900), "5/h" (5, 3600), "100/day" (100, 86400)."""
    match = _RATE.match(rate)
    if match is None:
        raise ValueError(f"Unreadable throttle rate {rate!r}; write it like '10/15m'.")
    count, multiplier, unit = match.groups()
    return int(count), int(multiplier or 1) * _UNIT_SECONDS[unit[0]]


def _raising(cache):
    """The cache with its Redis errors let through: config.cache's TolerantRedisCache
    offers `raising()` (this package imports no app, nor config); any other cache is
    used as it is."""
    return cache.raising() if hasattr(cache, "raising") else cache


@functools.cache
def _account_lookup():
    """settings.THROTTLE_ACCOUNT_LOOKUP: the function naming the account an identifier
    (username or email) signs in as (accounts.selectors.account_id_for). Named in the
    settings so that this package, below every app, imports none of them."""
    return import_string(settings.THROTTLE_ACCOUNT_LOOKUP)


class PostRateThrottle(SimpleRateThrottle):
    """A sliding window over POSTs only, with rates like "10/15m", read from the settings
    when the throttle is made (so overriding them in a test takes effect)."""

    def get_rate(self):
        self.THROTTLE_RATES = api_settings.DEFAULT_THROTTLE_RATES
        return super().get_rate()

    def parse_rate(self, rate):
        if rate is None:
            return (None, None)
        return parse_rate(rate)

    def ident(self, request) -> str | None:
        raise NotImplementedError

    def get_cache_key(self, request, view):
        if request.method != "POST":
            return None
        ident = self.ident(request)
        if not ident:
            return None
        return self.cache_format % {"scope": self.scope, "ident": ident}

    def allow_request(self, request, view):
        """DRF's sliding window, counted in the shared cache, or in this process's
        FALLBACK_COUNTS while the shared cache raises."""
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)  # reads the body: outside the try
        if self.key is None:
            return True
        try:
            return self._count_in(_raising(self.cache))
        except CACHE_ERRORS as err:
            log.warning("sign-in throttle counting in this process, cache unavailable: %s", err)
            return self._count_in(FALLBACK_COUNTS)

    def _count_in(self, store) -> bool:
        self.history = store.get(self.key, [])
        self.now = self.timer()
        while self.history and self.history[-1] <= self.now - self.duration:
            self.history.pop()
        if len(self.history) >= self.num_requests:
            return self.throttle_failure()
        self.history.insert(0, self.now)
        store.set(self.key, self.history, self.duration)
        return True

    def wait(self):
        """Seconds until one more request fits: until the request that filled the window
        leaves it. Always a number, so a 429 always carries Retry-After."""
        if self.num_requests <= 0 or len(self.history) < self.num_requests:
            return float(self.duration)
        filled_at = self.history[self.num_requests - 1]  # history is newest first
        return max(self.duration - (self.now - filled_at), 1.0)


class AccountThrottle(PostRateThrottle):
    """Keyed by the account a POST names, whichever identifier was typed: the first of
    `fields` present, normalised the way the sign-in forms read it (NFKC, trimmed,
    case-folded) and looked up as a username, else an email address. "learner",
    " Learner" and learner@example.com are one bucket; a value that names no account is
    its own bucket (its hash), so guessing at names that do not exist is throttled too.
    A form that names nobody (a signed-in password change or re-authentication) counts
    against the signed-in account."""

    fields: tuple[str, ...] = ()

    def ident(self, request) -> str | None:
        # A DRF Request has .data (JSON or form); a Django HttpRequest has .POST.
        data = request.data if hasattr(request, "data") else request.POST
        value = None
        for name in self.fields:
            value = data.get(name) if hasattr(data, "get") else None
            if value is not None:
                break
        if value is None:
            user = getattr(request, "user", None)
            if user is not None and user.is_authenticated:
                return f"account-{user.pk}"
            return None
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            return None
        value = unicodedata.normalize("NFKC", str(value)).strip().casefold()
        if not value:
            return None
        # No account has a NUL in its name (PostgreSQL text cannot hold one) or a name
        # longer than an email address may be: such a value is only its own bucket.
        if "\x00" not in value and len(value) <= MAX_IDENTIFIER:
            account = _account_lookup()(value)
            if account is not None:
                return f"account-{account}"
        return hashlib.sha256(value.encode()).hexdigest()


class SignInUsernameThrottle(AccountThrottle):
    """Per account: the token endpoint and the admin's login post `username`, the
    sign-in page `login` (a username or an email address)."""

    scope = "sign_in_username"
    fields = ("login", "username")


class PasswordResetEmailThrottle(AccountThrottle):
    scope = "password_reset_email"
    fields = ("email",)


class SignInIPThrottle(PostRateThrottle):
    """Per client IP, one budget shared by the token endpoint, the sign-in pages, the
    password reset and change, re-authentication and the company sign-in."""

    scope = "sign_in_ip"

    def ident(self, request) -> str | None:
        return self.get_ident(request)


class SignUpIPThrottle(SignInIPThrottle):
    """Per client IP: sign-ups (each makes an account and sends a mail), so one address
    cannot flood the site with accounts."""

    scope = "sign_up_ip"


class MemoPreviewThrottle(PostRateThrottle):
    """Per signed-in user: the writing page's live preview renders up to 60,000 characters
    of Markdown on every POST (linear, yet up to a second or two of a worker on hostile
    text), so one account cannot keep the workers busy with it. An honest writer's preview
    posts after each pause in typing, well under the rate."""

    scope = "memo_preview"

    def ident(self, request) -> str | None:
        user = getattr(request, "user", None)
        return str(user.pk) if user is not None and user.is_authenticated else None


class InvitationSendThrottle(MemoPreviewThrottle):
    """Per signed-in user: each POST of an invitations page (up to 200 addresses) or a
    resend mails people who never asked for it, so one account cannot make the site a
    mail cannon."""

    scope = "invitation_send"


SIGN_IN_THROTTLES = (SignInUsernameThrottle, SignInIPThrottle)
PASSWORD_RESET_THROTTLES = (PasswordResetEmailThrottle, SignInIPThrottle)
SIGN_UP_THROTTLES = (SignUpIPThrottle,)
IP_THROTTLES = (SignInIPThrottle,)


def too_many_attempts(request, wait: float) -> HttpResponse:
    """The 429 page, in the site's layout, with Retry-After."""
    seconds = max(math.ceil(wait), 1)
    minutes = math.ceil(seconds / 60)
    when = f"{minutes} minute{'s' if minutes != 1 else ''}"
    response = render(request, "429.html", {"wait": when}, status=429)
    response["Retry-After"] = str(seconds)
    return response


def refused_for(request, *throttle_classes) -> int | None:
    """Seconds to wait (for Retry-After) when one of the throttles refuses this request,
    else None; a Django view that answers a refusal its own way calls this."""
    throttles = [cls() for cls in throttle_classes]
    waits = [t.wait() for t in throttles if not t.allow_request(request, None)]
    return max(math.ceil(max(waits)), 1) if waits else None


def throttle_posts(*throttle_classes):
    """Wrap a Django view so its POSTs go through these DRF throttle classes first; a
    refused POST gets the 429 page with Retry-After and never reaches the view."""

    def decorator(view):
        @functools.wraps(view)
        def wrapped(request, *args, **kwargs):
            if request.method == "POST":
                wait = refused_for(request, *throttle_classes)
                if wait is not None:
                    return too_many_attempts(request, wait)
            return view(request, *args, **kwargs)

        return wrapped

    return decorator
