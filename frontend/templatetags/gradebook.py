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

_MARK = 987654321  # a placeholder id, reversed once; each cell puts its attempt's id there
_URL_KEY = "gradebook.attempt_url"


@register.simple_tag(takes_context=True)
def course_cell(context, cell, learner_name: str) -> SafeString:
    """One learner on one quiz: the counted attempt's points linked to its review (or
    "in progress", or "-"), then how many attempts. The review URL is reversed once per
    rendering (kept in its render_context), not once per cell."""
    counted = cell.counted
    if counted is not None:
        pattern = context.render_context.get(_URL_KEY)
        if pattern is None:
            pattern = context.render_context[_URL_KEY] = reverse("attempt-detail", args=[_MARK])
        url = pattern.replace(str(_MARK), str(counted.pk))
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
