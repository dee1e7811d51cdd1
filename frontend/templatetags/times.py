"""Times and durations in words, never an ISO timestamp on a page (issue 36).

A moment is printed in UTC words ("Fri 11 Dec 2026, 08:38 UTC") inside a <time> element
whose datetime attribute carries the machine form; frontend/static/frontend/local-times.js
rewrites the words into the reader's own time zone, which only the browser knows. Without
script the UTC words stay, and say which zone they are in.
"""

from __future__ import annotations

from datetime import timedelta

from django import template
from django.utils.html import format_html

from assess.services.attempts import moment_words

register = template.Library()


@register.simple_tag
def local_time(moment) -> str:
    if moment is None:
        return ""
    return format_html(
        '<time datetime="{}" data-local-time>{}</time>', moment.isoformat(), moment_words(moment)
    )


def _unit(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


@register.filter
def duration_words(value: timedelta | None) -> str:
    """45 minutes; 1 hour 30 minutes; 7 days (down to the minute)."""
    if value is None:
        return ""
    minutes = int(value.total_seconds() // 60)
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    parts = [
        _unit(n, word) for n, word in ((days, "day"), (hours, "hour"), (minutes, "minute")) if n
    ]
    return " ".join(parts) or "under a minute"
