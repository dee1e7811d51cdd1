r"""Markdown -> HTML with the numbers set apart, so a text's shape is converted once.

Python-Markdown spent about 0.3 ms converting a worked solution, the largest part of what
an answer that closes its part adds to an open one (bench/README.md, issue 43), and a
statement costs the same at every draw. The texts of one template differ from variant to
variant mostly in their numbers, and Markdown treats a number in running text as any
other text: it comes out as it went in. So, as problems.engine.latex_skeleton does for
formulas, each such number is replaced by a numbered stand-in (itself a number), the
skeleton is converted once and cached by the caller, and each stand-in in the HTML is
given back the number it stood for.

What guarantees the result: every stand-in must come back exactly once, and nothing in
the text may already look like one; otherwise the text is converted whole. Numbers where
Markdown reads digits as syntax are never replaced: an ordered list's marker at the start
of a line, a digit inside a word (`H100`, `h2`, `MATHTOKEN3X`), an entity (`&#8212;`),
a part of a dotted number (`1.5.3`). tests/problems/test_markdown_skeleton.py holds the
result to the converter's own, character for character, for hand-picked shapes and for
every statement, worked solution and hint of every template over a spread of seeds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# An ordered list's marker (kept as it is), or a number in running text (replaced).
_NUMBER = re.compile(r"(?m)(^[ \t]*\d+[.)](?=[ \t]|$))|(?<![\w.#&])\d+(?:\.\d+)?(?!\w|\.\d)")
_STAND_IN = "9{:03d}7"  # the k-th number's stand-in: 90007, 90017, ... (one token each)
_FOUND = re.compile(r"(?<!\d)9(\d{3})7(?!\d)")
MAX_NUMBERS = 1000  # stand-ins there are


@dataclass(frozen=True)
class Skeleton:
    text: str  # the Markdown with its numbers replaced by stand-ins
    numbers: tuple[str, ...]  # the k-th stand-in's number, as written


def skeleton_of(text: str) -> Skeleton | None:
    """The text's skeleton, or None where the text has too many numbers or something
    that already reads as a stand-in (it is then converted whole). A text with no number
    to set apart is its own skeleton: a worked solution whose every number sits in its
    formulas, cut out before Markdown sees it, reads the same for every variant but its
    units' names."""
    if _FOUND.search(text):
        return None
    numbers: list[str] = []

    def stand_in(match: re.Match[str]) -> str:
        if match.group(1) is not None:
            return match.group(0)
        numbers.append(match.group(0))
        return _STAND_IN.format(len(numbers) - 1)

    skeleton = _NUMBER.sub(stand_in, text)
    if len(numbers) > MAX_NUMBERS:
        return None
    return Skeleton(skeleton, tuple(numbers))


def fill(html: str, numbers: tuple[str, ...]) -> str | None:
    """The skeleton's HTML with each stand-in given back its number; None unless every
    stand-in comes back exactly once (a number Markdown read as syntax did not)."""
    found = sorted(int(k) for k in _FOUND.findall(html))
    if found != list(range(len(numbers))):
        return None
    return _FOUND.sub(lambda m: numbers[int(m.group(1))], html)
