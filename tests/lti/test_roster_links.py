"""The roster's next page, read from the LMS's Link header (lti/roster.py _next_page):
every form RFC 8288 allows that an LMS sends, nothing taken from a header that names no
next page, and hostile headers read in work linear in their length (tests/growth.py)."""

from __future__ import annotations

import pytest

from lti.roster import _next_page
from tests.growth import OverBudget, calls

NEXT = "https://lms.example.org/memberships?page=2"


@pytest.mark.parametrize(
    "header",
    [
        f'<{NEXT}>; rel="next"',
        f"<{NEXT}>; rel=next",
        f"<{NEXT}>;rel=next",
        f'<{NEXT}>; REL="Next"',
        f'<https://lms.example.org/memberships?page=1>; rel="prev", <{NEXT}>; rel="next"',
        f'<{NEXT}>; rel="next last"',
        f'<{NEXT}>; rel="next", <https://lms.example.org/memberships?page=9>; rel="last"',
    ],
)
def test_the_next_page_is_found(header):
    assert _next_page(header) == NEXT


@pytest.mark.parametrize(
    "header",
    [None, "", "garbage", f'<{NEXT}>; rel="prev"', f'<{NEXT}>; rel="nextish"', '<>; rel="next"'],
)
def test_no_next_page(header):
    assert _next_page(header) is None


HOSTILE = {
    "openers": lambda n: "<" * n,
    "relations": lambda n: ("<a>; rel=" * n)[:n],
    "links": lambda n: (", <" * n)[:n],
    "parameters": lambda n: "<a>" + ("; x=1" * n)[:n],
}


@pytest.mark.parametrize("pattern", HOSTILE)
def test_hostile_headers_are_read_in_linear_work(pattern):
    """64 KB (the longest header line the HTTP client reads) against 1 KB: at most 3 times
    linear growth in calls. What calls cannot see, a backtracking regular expression's
    work inside one C call, is why the reader uses none."""
    make = HOSTILE[pattern]
    base = calls(lambda: _next_page(make(1_000)))
    big = make(64_000)
    try:
        calls(lambda: _next_page(big), budget=3 * 64 * base)
    except OverBudget:
        pytest.fail(f"{pattern}: over {3 * 64 * base:,} calls at 64 KB ({base:,} at 1 KB)")
