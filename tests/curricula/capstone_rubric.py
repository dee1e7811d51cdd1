"""The capacity memo rubric's criteria, read from the rubric itself: the curricula (a
layer below the capstone) check only that a `capstone:CODE` link is well formed, and the
tests hold every such code in the data to the rubric."""

from __future__ import annotations

from functools import cache


@cache
def capstone_titles() -> dict[str, str]:
    """{code: title} of every criterion: reviewing the reference memo of one brief yields
    each of them."""
    from capstone.memo_review.brief import brief_for
    from capstone.memo_review.example import example_memo
    from capstone.memo_review.review import review_memo

    brief = brief_for(1)
    return {c.code: c.title for c in review_memo(brief, example_memo(brief)).criteria}
