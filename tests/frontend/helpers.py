"""Answers computed from the stored question (server side), right or deliberately wrong,
and the spellings a leaked value could take on a page."""

from __future__ import annotations

import re

from assess.models import Question
from problems.engine.numbers import sig
from tests.assess.helpers import misconception_text


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


def value_spellings(value: float) -> set[str]:
    """Ways a page could print a number: repr, str, 3 to 6 significant figures, fixed
    decimals, with and without thousands separators."""
    out = {repr(value), str(value), f"{value:g}"}
    for digits in (3, 4, 5, 6):
        out.add(f"{value:.{digits}g}")
        out.add(sig(value, digits))
    for decimals in (1, 2, 3):
        out.add(f"{value:.{decimals}f}")
        out.add(f"{value:,.{decimals}f}")
    return {s for s in out if len(s.replace(",", "").replace(".", "")) >= 3}


# Clock times (an exam's deadline and countdown) can spell a value by chance:
# 10:05:29.016 holds "29.0".
CLOCK = re.compile(r"\b(?:\d{4}-\d\d-\d\dT)?\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:[+-]\d\d:\d\d|Z)?")
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"')
# Attributes that hold URLs and element ids, where row ids can spell a value by chance
# (/attempts/312/ holds the "312" of a 312.47 GiB answer); never an answer's place.
ADDRESSES = re.compile(
    r"\b(?:href|action|src|id|for|name|hx-(?:get|post|target|swap|trigger|include)"
    r'|aria-(?:describedby|controls|labelledby))="[^"]*"'
)


def assert_no_answer_in(html: str, question: Question, *, typed: bool = False) -> None:
    """No solved value of any part in any usual spelling outside the statement (which may
    print the question's own inputs), the CSRF token, clock times, and URLs and element
    ids; no seed at all. A spelling the statement itself prints is no leak anywhere: at
    one byte per parameter the answer in GB is the parameter count in billions, which a
    lesson's public example of the same model prints too.
    typed=True also drops every input's value (the learner's own text)."""
    # A CSRF token is 64 random letters and digits: it spells "seed" about once in
    # 15,000 pages (a CI run failed so), so the word is looked for outside the tokens.
    assert "seed" not in CSRF.sub("", html).lower() and str(question.seed) not in html
    rest = CLOCK.sub("", CSRF.sub("", html.replace(question.statement_html, "")))
    rest = ADDRESSES.sub("", rest)
    if typed:
        rest = re.sub(r'value="[^"]*"', "", rest)
    for part in question.answers:
        for spelling in value_spellings(float(part["value"])):
            if spelling in question.statement_html:
                continue  # an input the learner's own statement prints (FP8: bytes = N)
            assert spelling not in rest, (spelling, part)
