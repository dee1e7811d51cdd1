"""Every parser and renderer of learner text grows linearly with hostile input.

Python-Markdown's link parsing was quadratic on `[`: 4,000 characters took 2.4 s and a
memo of 59,000 (under the 60,000 limit) hung a worker on every view. Here each entry
point that reads learner text runs on each hostile pattern at 1,000, 10,000 and 60,000
characters, and its call count (tests/growth.py: the same on a quiet machine or a busy
one, never wall time) may grow at most GROWTH times faster than the text: a linear parser
makes about 60 times the calls of 1,000 characters on 60,000, a quadratic one about 3,600
times. The entry points:

- preview: the writing page's preview, which is memo_html (the renderer that makes a
  version's HTML at submission, the HTML every memo page shows) and parse_memo, so a
  superlinear renderer fails here (measuring memo_html again would double the time);
- review: review_memo, the worker's review, which is parse_memo and the rubric's checks;
- answer: the answer reader, which refuses text past 256 characters before reading.

The pages themselves parse nothing on a view: tests/frontend/
test_memo_pages_hostile_text.py holds a page of a 59,000-bracket memo to the calls of a
short memo's page. A C call's own work (a backtracking regular expression) is invisible
to the count; the memo's expressions read only bounded text (test_memo.py).
"""

from __future__ import annotations

import pytest

from capstone.memo_review import brief_for, review_memo
from capstone.memo_review.memo_markdown import memo_html
from capstone.pages import memo_preview
from problems.engine.reader import read_answer
from tests.growth import PATTERNS, OverBudget, adversarial, calls

SIZES = (1_000, 10_000, 60_000)
GROWTH = 3  # slack over strictly linear growth: fixed costs, a longer tail of tokens
BRIEF = brief_for(7)

TARGETS = {
    "preview": memo_preview,
    "review": lambda text: review_memo(BRIEF, text),
    "answer": read_answer,
}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("pattern", PATTERNS)
def test_work_grows_linearly_with_hostile_text(target, pattern):
    fn = TARGETS[target]
    base = calls(lambda: fn(adversarial(pattern, SIZES[0])))
    counts = {SIZES[0]: base}
    for size in SIZES[1:]:
        budget = GROWTH * base * size // SIZES[0]
        text = adversarial(pattern, size)
        try:
            counts[size] = calls(lambda text=text: fn(text), budget=budget)
        except OverBudget:
            pytest.fail(
                f"{target} on {size:,} characters of {pattern}: over {budget:,} calls "
                f"({budget / base:.0f} times the {base:,} of {SIZES[0]:,} characters)"
            )
    ratio = counts[SIZES[-1]] / base
    assert ratio <= GROWTH * SIZES[-1] / SIZES[0], (target, pattern, counts)


def test_the_preview_renders_with_the_submission_renderer():
    """What the preview's count covers: the HTML stored at submission is made by the same
    call, so a superlinear renderer fails the fuzz above through the preview."""
    text = adversarial("link-openers", 1_000) + "\n\n## Fleet\n\n[x](javascript:y)"
    assert memo_preview(text).html == memo_html(text)
