"""A quiz's status as of this request, for the pages that list quizzes."""

from __future__ import annotations

from django import template
from django.utils import timezone

register = template.Library()


@register.filter
def status_now(quiz) -> str:
    """draft, published or closed (Quiz.status_at, now)."""
    return quiz.status_at(timezone.now())
