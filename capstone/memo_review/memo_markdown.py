"""A learner's memo as Markdown tokens and as HTML that is safe to show to its learner and
instructors, in time linear in its length.

The memo is parsed by markdown-it-py (CommonMark with its table rule), whose parser is
linear in its input and bounds nesting (MAX_NESTING levels; deeper blocks are not parsed,
so a memo of 30,000 nested list markers costs what a flat one does). Python-Markdown,
which rendered memos before, is quadratic on `[`: 4,000 characters took 2.4 s and a memo
of 59,000 brackets (under the 60,000 limit) hung a worker on every view. One set of rules
serves both the review's reading of the memo (memo.parse_memo, which needs the blocks
only) and its HTML, so what the review calls a section is what the page shows as a
heading.

problems.engine.render.render_markdown stays for text we write (statements, the brief): it
passes raw HTML through and reads `$...$` as LaTeX. A memo is neither trusted nor maths:
it is typed by a learner and read by an instructor, and it is full of dollar prices
("$2.50 per GPU-hour ... $3.10"), so here raw HTML is off (it reaches the page as escaped
text), there is no LaTeX, only http(s), mailto and in-page links keep their target (with
rel="nofollow noopener noreferrer"; any other link keeps its text and loses its href), and
images are shown as their alt text (a memo's page must not fetch anything from
elsewhere). Headings move down two levels (`#` -> h3, `##` -> h4), under the page's own
h1 and h2, so a page keeps one h1 and a heading outline a screen reader can walk.

The HTML is made once, when a version is submitted, and stored with it
(MemoVersion.html): the pages show it and never render a memo again.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token

MAX_NESTING = 20  # CommonMark preset's bound on nested blocks and inline nodes
SAFE_SCHEMES = ("http://", "https://", "mailto:", "#")
HEADINGS = {f"h{n}": f"h{min(n + 2, 6)}" for n in range(1, 7)}
LINK_REL = "nofollow noopener noreferrer"


class _MemoMarkdown(MarkdownIt):
    """CommonMark with tables, raw HTML off. Every link destination is parsed as a link
    (markdown-it would otherwise leave `[x](javascript:...)` as literal text, scheme and
    all); memo_html then keeps the href only for SAFE_SCHEMES. Without `inline`, only the
    blocks are parsed and each inline token keeps its Markdown source as its content."""

    def __init__(self, *, inline: bool = True) -> None:
        super().__init__(
            "commonmark", {"html": False, "xhtmlOut": False, "maxNesting": MAX_NESTING}
        )
        self.enable("table")
        if not inline:
            self.disable("inline")
        self.add_render_rule("image", _image_as_alt)

    def validateLink(self, url: str) -> bool:  # noqa: N802 (the library's name)
        return True


def _image_as_alt(renderer, tokens: list[Token], idx: int, options, env) -> str:
    alt = renderer.renderInlineAsText(tokens[idx].children or [], options, env)
    label = f"[image: {alt}]" if alt else "[image]"
    return f'<span class="img-alt">{escapeHtml(label)}</span>'


# Neither keeps state between calls: each parse makes its own.
_PARSER = _MemoMarkdown()
_BLOCK_PARSER = _MemoMarkdown(inline=False)


def memo_blocks(text: str) -> list[Token]:
    """The memo's block tokens, each inline token's content its Markdown source (its
    children unparsed): all the review reads, at a fraction of a full parse's cost."""
    return _BLOCK_PARSER.parse(text)


def _make_safe(tokens: list[Token]) -> None:
    for token in tokens:
        if token.tag in HEADINGS and token.type in ("heading_open", "heading_close"):
            token.tag = HEADINGS[token.tag]
        for child in token.children or ():
            if child.type != "link_open":
                continue
            href = str(child.attrGet("href") or "").strip()
            if href.lower().startswith(SAFE_SCHEMES):
                child.attrSet("rel", LINK_REL)
            else:
                child.attrs.pop("href", None)


def memo_html(text: str) -> str:
    """The memo as HTML: headings, lists, tables and code as written, no markup of its own."""
    tokens = _PARSER.parse(text)
    _make_safe(tokens)
    return _PARSER.renderer.render(tokens, _PARSER.options, {})
