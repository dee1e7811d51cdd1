"""EMAIL_URL → Django's EMAIL_* settings, read by dj-email-url.

dj-email-url knows `smtp://` (plain, port 25 by default), `submission://` (STARTTLS, port
587 by default), `console://`, `file://`, `memory://` and `dummy://`, with `?tls=1`,
`?ssl=1` and `?timeout=N` in the query. It leaves the backend unset for any other
scheme, which would silently fall back to SMTP on localhost; here an unknown scheme is
an error, and the widespread spellings `smtp+tls://` (STARTTLS) and `smtp+ssl://`
(implicit TLS) are accepted too.
"""

from __future__ import annotations

import urllib.parse

import dj_email_url

# Seconds before an unanswered SMTP connection gives up, unless the URL says ?timeout=N:
# without one a stuck mail server holds a web worker forever.
DEFAULT_TIMEOUT = 10

_ALIASES = {"smtp+tls": ("smtp", "tls"), "smtp+ssl": ("smtp", "ssl")}


def email_settings(url: str) -> dict:
    """The EMAIL_* settings (and DEFAULT_FROM_EMAIL / SERVER_EMAIL when the URL's query
    names them with `_default_from_email` / `_server_email`) for an EMAIL_URL."""
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme in _ALIASES:
        scheme, flag = _ALIASES[scheme]
        query = "&".join(q for q in (parts.query, f"{flag}=1") if q)
        url = urllib.parse.urlunsplit(parts._replace(scheme=scheme, query=query))
    if scheme not in dj_email_url.SCHEMES:
        known = sorted({*dj_email_url.SCHEMES, *_ALIASES})
        raise RuntimeError(
            f"EMAIL_URL has an unknown scheme {parts.scheme!r}; use one of {', '.join(known)}"
        )
    conf = dj_email_url.parse(url)
    if conf["EMAIL_TIMEOUT"] is None:
        conf["EMAIL_TIMEOUT"] = DEFAULT_TIMEOUT
    return conf
