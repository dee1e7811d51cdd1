"""A learner's memo, Markdown -> HTML that is safe to show to its learner and instructors.

problems.engine.render.render_markdown is for text we write (statements, the brief): it
passes raw HTML through and reads `$...$` as LaTeX. A memo is neither trusted nor maths:
it is typed by a learner and read by an instructor, and it is full of dollar prices
("$2.50 per GPU-hour ... $3.10"), so here the same library (Python-Markdown, with the same
fenced-code and table extensions) runs with raw HTML switched off (it reaches the page as
escaped text), no LaTeX, only http(s), mailto and in-page links, and images shown as their
alt text (a memo's page must not fetch anything from elsewhere). Its headings move down
two levels (`#` -> h3, `##` -> h4), under the page's own h1 and h2, so a page keeps one h1
and a heading outline a screen reader can walk.
"""

from __future__ import annotations

from xml.etree.ElementTree import Element

import markdown
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

SAFE_SCHEMES = ("http://", "https://", "mailto:", "#")
HEADINGS = {f"h{n}": f"h{min(n + 2, 6)}" for n in range(1, 7)}


class _SafeLinks(Treeprocessor):
    """Drop links to anything but the web, mail or this page; images become their alt;
    headings move down two levels."""

    def run(self, root: Element) -> None:
        for el in root.iter():
            if el.tag in HEADINGS:
                el.tag = HEADINGS[el.tag]
        for parent in list(root.iter()):
            for child in list(parent):
                if child.tag == "a":
                    href = (child.get("href") or "").strip()
                    if not href.lower().startswith(SAFE_SCHEMES):
                        child.attrib.pop("href", None)
                    else:
                        child.set("rel", "nofollow noopener noreferrer")
                elif child.tag == "img":
                    alt = child.get("alt") or ""
                    span = Element("span", {"class": "img-alt"})
                    span.text = f"[image: {alt}]" if alt else "[image]"
                    span.tail = child.tail
                    parent.insert(list(parent).index(child), span)
                    parent.remove(child)


class _NoRawHtml(Extension):
    def extendMarkdown(self, md: markdown.Markdown) -> None:  # noqa: N802 (the library's name)
        md.preprocessors.deregister("html_block")
        md.inlinePatterns.deregister("html")
        md.treeprocessors.register(_SafeLinks(md), "memo_safe_links", 0)


def memo_html(text: str) -> str:
    """The memo as HTML: headings, lists, tables and code as written, no markup of its own."""
    md = markdown.Markdown(extensions=["fenced_code", "tables", _NoRawHtml()], output_format="html")
    return md.convert(text)
