"""LMSs show the tool in an iframe. LTI responses drop X-Frame-Options (which cannot name
an origin) and send `Content-Security-Policy: frame-ancestors` naming the origins of the
active registrations (issuer and login URL), and nothing else; every other directive of
the site's content security policy (config.settings, django-csp) stays as it is.

A session started by a launch lives on in that iframe (lti.middleware): the launch view
marks it with the launching platform's origins (`FRAME_ORIGINS`), and for such a session
only, the pages the launch leads to (`FRAMEABLE_IN_LTI`) may be framed by those origins
(while their registration is active), and its session and CSRF cookies are sent as
`SameSite=None; Secure; Partitioned`. Ordinary sign-ins are untouched."""

from __future__ import annotations

from functools import wraps
from http.cookies import Morsel
from urllib.parse import urlsplit

from lti_tool.models import LtiRegistration

# Session key: the origins of the platform whose launch signed this session in.
FRAME_ORIGINS = "lti_frame_origins"

# The pages a launched user works on inside the LMS: the landing pages (learner's
# attempt, instructor's quiz items; the deep-linking picker is `lti_frameable`) and the
# attempt's own steps. Every other page (home, accounts, teaching, admin...) keeps
# X-Frame-Options: DENY even in a launched session: the LMS frames the quiz it launched,
# not the rest of the account.
FRAMEABLE_IN_LTI = frozenset(
    {
        "attempt-detail",
        "attempt-finish",
        "question-detail",
        "question-answer",
        "question-vary",
        "question-reveal",
        "quiz-items",
    }
)


def origins_of(*urls: str) -> list[str]:
    """scheme://host[:port] of each http(s) URL, sorted, without duplicates."""
    origins = set()
    for url in urls:
        parts = urlsplit(url or "")
        if parts.scheme in ("http", "https") and parts.netloc:
            origins.add(f"{parts.scheme}://{parts.netloc}")
    return sorted(origins)


def platform_origins() -> list[str]:
    rows = LtiRegistration.objects.active().values_list("issuer", "auth_url")
    return origins_of(*(url for row in rows for url in row))


def lti_frameable(view):
    """The LTI endpoints (login, launch, deep-linking picker): frameable by every active
    registration's origins, or by none. The rest of the site's policy (django-csp) stays:
    only frame-ancestors is replaced, through django-csp's per-response replacement (what
    its csp_replace decorator sets, here with origins read at request time)."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        response.xframe_options_exempt = True
        response._csp_replace = {"frame-ancestors": platform_origins() or ["'none'"]}
        return response

    return wrapped


def with_frame_ancestors(csp: str, origins: list[str]) -> str:
    """`csp` with its frame-ancestors directive (if any) replaced by one naming `origins`;
    every other directive is kept as it was."""
    kept = [
        d.strip() for d in csp.split(";") if d.strip() and d.split()[0].lower() != "frame-ancestors"
    ]
    return "; ".join([*kept, "frame-ancestors " + " ".join(origins)])


class PartitionedMorsel(Morsel):
    """A cookie that can carry the CHIPS `Partitioned` attribute (http.cookies learns it
    only in Python 3.14; Django 5.2's set_cookie has no argument for it)."""

    _reserved = {**Morsel._reserved, "partitioned": "Partitioned"}
    _flags = {*Morsel._flags, "partitioned"}


def cross_site_cookie(morsel: Morsel) -> PartitionedMorsel:
    """A copy of `morsel` sent as `SameSite=None; Secure; Partitioned`.

    SameSite=None is what lets the cookie come back at all inside the LMS's (cross-site)
    iframe, and it requires Secure (https, or http://localhost, which chromium treats as
    a secure context). Partitioned (CHIPS) keys the cookie to the top-level site that
    framed us, the LMS, so:
    - it keeps working where third-party cookies are blocked (chromium with 3PC
      blocking; CHIPS is what browsers still allow in frames);
    - a launch never overwrites the user's own first-party session cookie of the same
      name (an unpartitioned SameSite=None cookie would: the LMS user would then be
      signed in on our site at the top level too, and that session's pages frameable),
      and the launched session is never sent outside that LMS's frames;
    - one LMS's launched session is invisible to another LMS's frames.
    Browsers that do not know the attribute ignore it and keep a SameSite=None cookie,
    which is what LTI needs anyway. The launch and OIDC login run in the same frame, so
    the state cookie (lti.oidc) is partitioned alike."""
    cookie = PartitionedMorsel()
    cookie.set(morsel.key, morsel.value, morsel.coded_value)
    for attribute, value in morsel.items():
        cookie[attribute] = value
    cookie["samesite"] = "None"
    cookie["secure"] = True
    cookie["partitioned"] = True
    return cookie
