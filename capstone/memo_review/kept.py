"""A capstone keeps the brief it was drawn with.

The brief is stored on the capstone when it is drawn (its as_dict, and the generator's
version), so a later change to the generator, the catalog or the prices never rewrites
the brief under a memo already written, reviewed or approved. Only a capstone with no
stored brief (rows made directly, in tests or benchmarks) is drawn again, by the
generator of its recorded version; version 1 lives on in brief_v1.py for that. Pure.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from capstone.memo_review import brief as current
from capstone.memo_review import brief_v1
from capstone.memo_review.brief import Brief


def generators() -> dict[int, Callable[[int], Brief]]:
    """Every generator version a stored capstone may name (read at call time, so a
    version bump is seen at once)."""
    return {brief_v1.VERSION: brief_v1.brief_for, current.BRIEF_VERSION: current.brief_for}


def draw(seed: int) -> tuple[dict[str, Any], int]:
    """(the brief as stored, the generator version) of a capstone drawn now."""
    return current.brief_for(seed).as_dict(), current.BRIEF_VERSION


def brief_of(seed: int, stored: dict[str, Any] | None, version: int | None) -> Brief:
    """The brief a capstone was drawn with: the stored one, else its version's draw."""
    if stored:
        return Brief.from_dict(stored)
    return generators()[version or current.BRIEF_VERSION](seed)
