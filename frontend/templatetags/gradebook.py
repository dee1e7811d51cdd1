"""The course gradebook's cells, written in Python: a page holds learners x quizzes of
them (2,500 at 50 learners and 50 quizzes), and the template language's per-cell
lookups, filters and URL reversing were half of the page's time (issue 43)."""

from __future__ import annotations

from django import template
from django.template.defaultfilters import floatformat, pluralize
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

register = template.Library()

_MARK = 987654321  # an id no attempt has: where the attempt's id goes in its URL


@register.simple_tag
def course_cell(cell, learner_name: str) -> SafeString:
    """One learner on one quiz: the counted attempt's points linked to its review (or
    "in progress", or "-"), then how many attempts."""
    counted = cell.counted
    if counted is not None:
        url = _attempt_url().replace(str(_MARK), str(counted.pk))
        score = format_html(
            '<a href="{}">{} / {}<span class="sr-only"> on {} by {}</span></a>',
            url,
            floatformat(counted.points, "-2"),
            floatformat(cell.max_points, "-2"),
            cell.quiz.title,
            learner_name,
        )
    else:
        score = "in progress" if cell.in_progress else "-"
    n = len(cell.attempts)
    return format_html(
        '<td class="num">{}\n        <br><span class="meta">{} attempt{}</span></td>',
        score,
        n,
        pluralize(n),
    )


def _attempt_url() -> str:
    return reverse("attempt-detail", args=[_MARK])
