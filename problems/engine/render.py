"""Markdown with LaTeX -> HTML with MathML, rendered on the server.

Math is cut out before Markdown runs (so `_` and `*` inside formulas survive), turned
into MathML by latex2mathml, and put back afterwards.
"""

from __future__ import annotations

import re
from functools import lru_cache

import markdown
from latex2mathml.converter import convert

_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.S)
_PLACEHOLDER = "MATHTOKEN{}X"


@lru_cache(maxsize=4096)
def latex_to_mathml(latex: str, display: bool = False) -> str:
    return convert(latex.strip(), display="block" if display else "inline")


def render_markdown(text: str) -> str:
    pieces: list[str] = []

    def cut(match: re.Match[str]) -> str:
        block, inline = match.group(1), match.group(2)
        pieces.append(latex_to_mathml(block if block is not None else inline, block is not None))
        return _PLACEHOLDER.format(len(pieces) - 1)

    body = _MATH.sub(cut, text)
    html = markdown.markdown(body, extensions=["fenced_code", "tables"], output_format="html")
    for i, mathml in enumerate(pieces):
        token = _PLACEHOLDER.format(i)
        html = html.replace(f"<p>{token}</p>", mathml).replace(token, mathml)
    return html
