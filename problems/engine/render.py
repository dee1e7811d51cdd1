r"""Markdown with LaTeX -> HTML with MathML, rendered on the server.

Math is cut out before Markdown runs (so `_` and `*` inside formulas survive), turned
into MathML by latex2mathml, and put back afterwards. Fenced code blocks (the tool output
a scenario problem shows) are set aside first, so a `$` in a shell prompt or a price
stays text and the block reaches the page as `<pre><code>`, escaped by Markdown.

Three presentation rules are kept here, once for every template (`typeset` below), since
latex2mathml follows the LaTeX literally:

- upright roman: `\mathrm{B}` with one letter came out as a plain, italic `<mi>B</mi>`
  (a unit read as a variable); it is given as `\mathrm{ B }`, which keeps the font;
- thousands separators: `65{,}536` (and a bare `65,536`) came out as 65, a comma operator
  with space after it, and 536 ("65, 536"); each grouped number becomes one `<mn>65,536</mn>`;
- stretching fences: a bare `\lfloor`/`\lceil` became a fixed-size identifier; each pair
  is given as `\left\lfloor ... \right\rfloor`, an operator that stretches around a fraction.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache

import markdown

from problems.engine.latex_skeleton import to_mathml
from problems.engine.markdown_skeleton import fill, skeleton_of

_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.S)
_FENCE = re.compile(r"^(```|~~~)[^\n]*\n.*?^\1[ \t]*$", re.S | re.M)
_PLACEHOLDER = "MATHTOKEN{}X"
_FENCE_PLACEHOLDER = "FENCETOKEN{}X"


_ROMAN_LETTER = re.compile(r"\\mathrm\{\s*([^\s{}\\])\s*\}")
_OPEN_FENCE = re.compile(r"(?<!\\left)(\\l(?:floor|ceil))(?![A-Za-z])")
_CLOSE_FENCE = re.compile(r"(?<!\\right)(\\r(?:floor|ceil))(?![A-Za-z])")
# latex2mathml's output for 65{,}536 (the comma in its own mrow) and for 65,536.
_COMMA = r"(?:<mrow><mo>&#x0002C;</mo></mrow>|<mo>&#x0002C;</mo>)"
_GROUPED = re.compile(
    rf"<mn>(\d{{1,3}})</mn>((?:{_COMMA}<mn>\d{{3}}</mn>)*{_COMMA}<mn>\d{{3}}(?:\.\d+)?</mn>)"
)
_GROUP = re.compile(rf"{_COMMA}<mn>([\d.]+)</mn>")


def typeset(latex: str) -> str:
    """The LaTeX as latex2mathml must see it for upright units and stretching fences."""
    latex = _ROMAN_LETTER.sub(r"\\mathrm{ \1 }", latex)
    if _OPEN_FENCE.search(latex) and _CLOSE_FENCE.search(latex):
        latex = _CLOSE_FENCE.sub(r"\\right\1", _OPEN_FENCE.sub(r"\\left\1", latex))
    return latex


def _join_groups(mathml: str) -> str:
    """One number, one <mn>: 65 , 536 -> <mn>65,536</mn> (a comma with no space after)."""

    def join(match: re.Match[str]) -> str:
        rest = "".join(f",{digits}" for digits in _GROUP.findall(match.group(2)))
        return f"<mn>{match.group(1)}{rest}</mn>"

    return _GROUPED.sub(join, mathml)


_LOCAL = threading.local()


def _markdown() -> markdown.Markdown:
    """This thread's Markdown converter. Building one (its extensions, its processors)
    cost more than converting a statement, and every attempt's start renders several;
    a converter is reused after reset(), one per thread since it keeps state while it
    converts."""
    md = getattr(_LOCAL, "md", None)
    if md is None:
        md = _LOCAL.md = markdown.Markdown(
            extensions=["fenced_code", "tables"], output_format="html"
        )
    return md


def _convert(text: str) -> str:
    return _markdown().reset().convert(text)


@lru_cache(maxsize=2048)
def _shape_html(skeleton: str) -> str:
    return _convert(skeleton)


def markdown_html(text: str) -> str:
    """Python-Markdown's HTML for the text (math already cut out), converted from its
    cached skeleton where it can be (problems.engine.markdown_skeleton says when)."""
    shape = skeleton_of(text)
    if shape is not None:
        html = fill(_shape_html(shape.text), shape.numbers)
        if html is not None:
            return html
    return _convert(text)


@lru_cache(maxsize=4096)
def latex_to_mathml(latex: str, display: bool = False) -> str:
    mathml = to_mathml(typeset(latex.strip()), display="block" if display else "inline")
    return _join_groups(mathml)


@lru_cache(maxsize=2048)
def render_markdown(text: str) -> str:
    """The HTML with MathML for a Markdown text. A pure function of the text, so it is
    cached (about 2 KB a text): variants repeat (a class's exam draws the same
    statement and solution several times over, a review renders its solutions again),
    and rendering one cost more than everything else a start does per question."""
    pieces: list[str] = []
    fences: list[str] = []

    def keep(match: re.Match[str]) -> str:
        fences.append(match.group(0))
        return _FENCE_PLACEHOLDER.format(len(fences) - 1)

    text = _FENCE.sub(keep, text)

    def cut(match: re.Match[str]) -> str:
        block, inline = match.group(1), match.group(2)
        pieces.append(latex_to_mathml(block if block is not None else inline, block is not None))
        return _PLACEHOLDER.format(len(pieces) - 1)

    body = _MATH.sub(cut, text)
    for i, fence in enumerate(fences):
        body = body.replace(_FENCE_PLACEHOLDER.format(i), fence)
    html = markdown_html(body)
    for i, mathml in enumerate(pieces):
        token = _PLACEHOLDER.format(i)
        html = html.replace(f"<p>{token}</p>", mathml).replace(token, mathml)
    return html
