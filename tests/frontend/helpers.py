"""Answers computed from the stored question (server side), right or deliberately wrong,
and the spellings a leaked value could take on a page."""

from __future__ import annotations

import re

from assess.models import Question
from tests.assess.helpers import misconception_text, printed_input, value_spellings


def part_of(question: Question, index: int = 0) -> dict:
    return Question.objects.get(pk=question.pk).answers[index]


def right_text(part: dict) -> str:
    if part["kind"] == "choice":
        return str(part["value"])
    if part["kind"] == "integer":
        return str(int(part["value"]))
    return f"{part['value']!r} {part['unit']}".strip()


# The GB/GiB slip, typed as a bare number: one definition for the API and page tests.
gib_slip_text = misconception_text


# Clock times (an exam's deadline and countdown) can spell a value by chance:
# 10:05:29.016 holds "29.0".
CLOCK = re.compile(r"\b(?:\d{4}-\d\d-\d\dT)?\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:[+-]\d\d:\d\d|Z)?")
# The CSRF token, in a form's hidden field or in the body's htmx headers (a CI run's
# lesson page failed on a token spelling "seed" there).
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"|"X-CSRFToken": "[^"]*"')
# Attributes that hold URLs and element ids, where row ids can spell a value by chance
# (/attempts/312/ holds the "312" of a 312.47 GiB answer); never an answer's place.
ADDRESSES = re.compile(
    r"\b(?:href|action|src|id|for|name|hx-(?:get|post|target|swap|trigger|include)"
    r'|aria-(?:describedby|controls|labelledby))="[^"]*"'
)


def assert_no_answer_in(html: str, question: Question, *, typed: bool = False) -> None:
    """No solved value of any part in any usual spelling outside the statement (which may
    print the question's own inputs), the CSRF token, clock times, and URLs and element
    ids; no seed at all. A value the statement itself prints is no leak anywhere (see
    printed_input): a hint that shows the formula with this variant's inputs prints it
    again, to its own number of figures.
    typed=True also drops every input's value (the learner's own text)."""
    # A CSRF token is 64 random letters and digits: it spells "seed" about once in
    # 15,000 pages (a CI run failed so), so the word is looked for outside the tokens.
    assert "seed" not in CSRF.sub("", html).lower() and str(question.seed) not in html
    rest = CLOCK.sub("", CSRF.sub("", html.replace(question.statement_html, "")))
    rest = ADDRESSES.sub("", rest)
    if typed:
        rest = re.sub(r'value="[^"]*"', "", rest)
    for part in question.answers:
        if printed_input(part, question.statement_html):
            continue
        for spelling in value_spellings(float(part["value"])):
            assert spelling not in rest, (spelling, part)
