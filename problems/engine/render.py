"""Markdown with LaTeX -> HTML with MathML, rendered on the server.

Math is cut out before Markdown runs (so `_` and `*` inside formulas survive), turned
into MathML by latex2mathml, and put back afterwards. Fenced code blocks (the tool output
a scenario problem shows) are set aside first, so a `$` in a shell prompt or a price
stays text and the block reaches the page as `<pre><code>`, escaped by Markdown.
"""

from __future__ import annotations

import re
from functools import lru_cache

import markdown
from latex2mathml.converter import convert

_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.S)
_FENCE = re.compile(r"^(```|~~~)[^\n]*\n.*?^\1[ \t]*$", re.S | re.M)
_PLACEHOLDER = "MATHTOKEN{}X"
_FENCE_PLACEHOLDER = "FENCETOKEN{}X"


@lru_cache(maxsize=4096)
def latex_to_mathml(latex: str, display: bool = False) -> str:
    return convert(latex.strip(), display="block" if display else "inline")


def render_markdown(text: str) -> str:
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
    html = markdown.markdown(body, extensions=["fenced_code", "tables"], output_format="html")
    for i, mathml in enumerate(pieces):
        token = _PLACEHOLDER.format(i)
        html = html.replace(f"<p>{token}</p>", mathml).replace(token, mathml)
    return html
