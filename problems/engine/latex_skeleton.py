r"""LaTeX -> MathML with the numbers set apart, so a formula's shape is converted once.

latex2mathml costs about 0.3 ms a fragment here, and a worked solution has four or five;
a five-question review spent a third of its time in it. The fragments of one template
differ from variant to variant only in their numbers (`512 \times 10^{3}` against
`640 \times 10^{3}`), and the converter treats every number token alike: it emits the
token's text in an `<mn>` wherever the shape puts it. So each number is replaced by a
numbered stand-in (itself a number token), the resulting skeleton is converted once and
cached, and each stand-in's `<mn>` is filled with the number it stood for.

What guarantees the result: a stand-in that does not come back exactly once as a bare
`<mn>` (a number inside `\text{}`, one digit read after `^`, a `\frac12` shorthand, a
dimension such as `5 mm`) sends the fragment to the converter whole. Before that, digits
that are not where a number token starts (right after `_`, `^` or `.`) stay in the
skeleton, and shapes that could never fill (`\frac12`, dimensions, `\verb`, comments)
are not tried. The result is the converter's own, character for character:
tests/problems/test_latex_skeleton.py holds hand-picked shapes and every fragment of
every template to it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from latex2mathml.converter import convert

# A number token as latex2mathml's tokenizer reads one, where it starts one.
_NUMBER = re.compile(r"(?<![\d._^])\d+(?:\.\d+)?")
# Shapes whose stand-ins could not fill (a shortcut: the fill check decides).
_UNSAFE = re.compile(
    r"frac\s*[.\d]|\d\s*(?:in|mm|cm|pt|em|ex|pc|bp|dd|cc|sp|mu)(?![A-Za-z])|\\verb|%"
)
_STAND_IN = "9{:03d}7"  # the k-th number's stand-in: 90007, 90017, ... (one token each)


@lru_cache(maxsize=4096)
def _skeleton_mathml(skeleton: str, display: str) -> str:
    return convert(skeleton, display=display)


def _fill(mathml: str, numbers: list[str]) -> str | None:
    for k, number in enumerate(numbers):
        tag = f"<mn>{_STAND_IN.format(k)}</mn>"
        if mathml.count(tag) != 1:
            return None
        mathml = mathml.replace(tag, f"<mn>{number}</mn>")
    return mathml


def to_mathml(latex: str, display: str = "inline") -> str:
    """convert(latex, display=display), computed from the cached skeleton when it can
    be (the module docstring says when)."""
    if not _UNSAFE.search(latex):
        numbers: list[str] = []

        def stand_in(match: re.Match[str]) -> str:
            numbers.append(match.group(0))
            return _STAND_IN.format(len(numbers) - 1)

        skeleton = _NUMBER.sub(stand_in, latex)
        if 0 < len(numbers) <= 1000:
            filled = _fill(_skeleton_mathml(skeleton, display), numbers)
            if filled is not None:
                return filled
    return convert(latex, display=display)
