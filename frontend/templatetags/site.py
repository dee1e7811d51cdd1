"""Navigation and small display helpers for the page templates."""

from __future__ import annotations

from django import template
from django.urls import reverse
from django.utils.html import format_html

from assess import selectors

register = template.Library()


@register.simple_tag(takes_context=True)
def nav_link(context, name: str, label: str) -> str:
    """A main-menu link, marked aria-current on its own section."""
    url = reverse(name)
    path = context["request"].path
    current = path == url if url == "/" else path.startswith(url)
    if current:
        return format_html('<a href="{}" aria-current="page">{}</a>', url, label)
    return format_html('<a href="{}">{}</a>', url, label)


@register.filter
def is_teacher(user) -> bool:
    return selectors.user_is_teacher(user=user)


@register.filter
def pct(fraction: float | None) -> str:
    return "—" if fraction is None else f"{fraction * 100:.0f}%"


@register.filter
def p2(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"
