"""Template helpers of the incident drill block (take/_drill.html)."""

from __future__ import annotations

from uuid import uuid4

from django import template

register = template.Library()


@register.simple_tag
def fresh_key() -> str:
    """A new idempotency key for one rendered form: sending that form twice (a double
    click, a resend after a lost connection) takes its action once, while a form
    rendered later is a new request (assess.services.drills)."""
    return f"web-{uuid4().hex}"
