"""Capstone capacity memos: the seeded brief, the memo format, and the pure reviewer.

Nothing here imports Django or does I/O: a Celery task (issue 13) gives `review_memo` a
brief rebuilt from its seed and the memo's text, and stores the Review it returns.

    from capstone.memo_review import brief_for, example_memo, review_memo
    brief = brief_for(7)
    review_memo(brief, example_memo(brief)).score      # full marks
"""

from capstone.memo_review.brief import Brief, Candidate, brief_for
from capstone.memo_review.example import MISTAKES, example_memo
from capstone.memo_review.memo import FIGURES, SECTIONS, parse_memo
from capstone.memo_review.review import Criterion, Review, review_memo

__all__ = [
    "FIGURES",
    "MISTAKES",
    "SECTIONS",
    "Brief",
    "Candidate",
    "Criterion",
    "Review",
    "brief_for",
    "example_memo",
    "parse_memo",
    "review_memo",
]
