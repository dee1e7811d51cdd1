"""Navigation and small display helpers for the page templates."""

from __future__ import annotations

from django import template
from django.conf import settings
from django.urls import reverse
from django.utils.html import format_html

from frontend.forms import PracticeSessionForm
from frontend.queries.common import weakest_estimate
from frontend.queries.roles import menu_roles
from problems.engine.misconception_names import misconception_name
from problems.engine.skill_names import skill_name

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


def _menu_roles(user) -> tuple[bool, bool]:
    """(teaches, manages), asked by the menu and again by some pages in one request:
    one query for both, kept on the request's user object."""
    known = getattr(user, "_frontend_roles", None)
    if known is None:
        if not user.is_authenticated:
            known = (False, False)
        elif user.is_staff:
            known = (True, True)
        else:
            known = menu_roles(user=user)
        user._frontend_roles = known
    return known


@register.filter
def is_teacher(user) -> bool:
    """Staff, or an instructor of a course: who sees the teaching pages."""
    return _menu_roles(user)[0]


@register.filter
def is_manager(user) -> bool:
    """Staff, or a manager of an organisation: who sees the teams' readiness."""
    return _menu_roles(user)[1]


@register.simple_tag
def signup_open() -> bool:
    """Whether this site makes accounts by sign-up (SIGNUP_OPEN)."""
    return bool(getattr(settings, "SIGNUP_OPEN", True))


@register.simple_tag
def session_form(slug: str) -> PracticeSessionForm:
    """The "how many questions" choice of a practice start form, with ids of its own so
    one page may hold several (the summary offers this lesson and the next)."""
    return PracticeSessionForm(auto_id=f"n-{slug}-%s", label_suffix="")


@register.filter
def pct(fraction: float | None) -> str:
    """A share or a mastery estimate as pages print it: "17%". The one way a page shows
    a probability (the API keeps 0.17)."""
    return "—" if fraction is None else f"{fraction * 100:.0f}%"


@register.filter
def p2(value: float | None) -> str:
    """A statistic that is not a mastery (item analysis: discrimination, a proportion)."""
    return "—" if value is None else f"{value:.2f}"


@register.filter
def weakest(mastery) -> str:
    """ "KV cache bytes at 42%", or "KV cache bytes, no answers yet" where the lesson's
    weakest skill has no answer yet (see weakest_estimate). Never "not started": the
    lesson beside it may well be started, its other skills mastered."""
    p = weakest_estimate(mastery)
    name = skill_name(mastery.summary.weakest)
    return f"{name}, no answers yet" if p is None else f"{name} at {pct(p)}"


@register.filter
def weakest_p(mastery) -> str:
    p = weakest_estimate(mastery)
    return "no answers yet" if p is None else pct(p)


@register.filter(name="skill_name")
def skill_name_filter(slug: str | None) -> str:
    """A skill in words (problems.engine.skill_names): pages never show the slug."""
    return skill_name(slug)


@register.filter(name="misconception_name")
def misconception_name_filter(code: str | None) -> str:
    """A misconception in words (problems.engine.misconception_names)."""
    return misconception_name(code)
