r"""Author text as HTML that is safe to show: raw HTML escaped, links checked, TeX bounded.

An authored template's statement, labels, feedback, hints and solution are written by an
instructor, not by us, so they never reach problems.engine.render.render_markdown, which
passes raw HTML through for our own templates. Here:

- Markdown is parsed by markdown-it-py (CommonMark, raw HTML off), linear in the text and
  with nesting bounded (MAX_NESTING), as capstone/memo_review/memo_markdown.py does for
  learners' memos: `<script>` and `<img onerror=...>` reach the page as escaped text; a
  link keeps its target only for http(s), mailto and in-page anchors (a `javascript:`
  link keeps its text and loses its href); an image is shown as its alt text, so author
  text never makes a page fetch anything.
- `$...$` and `$$...$$` are found by a linear scan and converted by the engine's LaTeX to
  MathML converter only within bounds (MAX_TEX_CHARS a formula, MAX_TEX_TOTAL a text,
  braces nested at most MAX_TEX_DEPTH deep). latex2mathml copies `\text{...}` into its
  output unescaped and turns `\href` into an attribute, so its output is accepted only if
  it parses as XML made of MathML elements and presentation attributes alone (_ELEMENTS,
  _ATTRIBUTES) and is then written out again by ElementTree, which escapes every text.
  A formula out of bounds, that fails to convert, or whose MathML is refused is shown as
  its source, escaped, in <code>.
"""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token

from problems.engine.render import latex_to_mathml

MAX_NESTING = 20
MAX_CHARS = 50_000  # beyond the longest text the format allows, rendered as plain text
MAX_TEX_CHARS = 1_000
MAX_TEX_TOTAL = 20_000
MAX_TEX_DEPTH = 20
MAX_FORMULAS = 300
SAFE_SCHEMES = ("http://", "https://", "mailto:", "#")
LINK_REL = "nofollow noopener noreferrer"
_PREFIX = "AUTHMATH"
_TOKEN = _PREFIX + "{}Z"
_STAND_IN = re.compile(_PREFIX + r"([0-9]{1,6})Z")  # a formula's place while Markdown is parsed
_NS = "{http://www.w3.org/1998/Math/MathML}"

# MathML's presentation elements and attributes, the only markup a formula may produce.
_ELEMENTS = frozenset(
    "math mrow mi mn mo mtext mspace ms mfrac msqrt mroot msub msup msubsup munder mover "  # noqa: SIM905
    "munderover mtable mtr mtd mstyle mpadded mphantom menclose merror semantics "
    "annotation mmultiscripts mprescripts none".split()
)
_ATTRIBUTES = frozenset(
    "display mathvariant stretchy fence separator lspace rspace width height depth "  # noqa: SIM905
    "columnalign columnlines columnspacing rowspacing rowlines displaystyle scriptlevel "
    "accent accentunder linethickness movablelimits notation form minsize maxsize "
    "symmetric largeop open close separators encoding align frame framespacing "
    "equalrows equalcolumns rowalign".split()
)


class _AuthorMarkdown(MarkdownIt):
    """CommonMark, raw HTML off; every link destination parsed as a link so the renderer
    decides its fate (markdown-it would otherwise leave `[x](javascript:...)` as text)."""

    def __init__(self) -> None:
        super().__init__("commonmark", {"html": False, "maxNesting": MAX_NESTING})
        self.enable("table")
        self.add_render_rule("image", _image_as_alt)

    def validateLink(self, url: str) -> bool:  # noqa: N802 (the library's name)
        return True


def _image_as_alt(renderer, tokens: list[Token], idx: int, options, env) -> str:
    alt = renderer.renderInlineAsText(tokens[idx].children or [], options, env)
    return f'<span class="img-alt">{escapeHtml(f"[image: {alt}]" if alt else "[image]")}</span>'


_PARSER = _AuthorMarkdown()
ET.register_namespace("", _NS[1:-1])  # MathML written back without a prefix


def _brace_depth(tex: str) -> int:
    depth = deepest = 0
    for ch in tex:
        if ch == "{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == "}":
            depth -= 1
    return deepest


def tex_problem(tex: str) -> str | None:
    """Why a formula would not be typeset, or None when it is within the bounds."""
    if len(tex) > MAX_TEX_CHARS:
        return f"a formula is {len(tex):,} characters; at most {MAX_TEX_CHARS:,} are typeset"
    if _brace_depth(tex) > MAX_TEX_DEPTH:
        return f"a formula nests braces more than {MAX_TEX_DEPTH} deep"
    return None


def formulas(text: str) -> list[tuple[int, int, str, bool]]:
    """Every formula as (start, end, TeX, display), by a scan with str.find: linear."""
    found: list[tuple[int, int, str, bool]] = []
    i = 0
    while (j := text.find("$", i)) >= 0:
        if text.startswith("$$", j):
            k = text.find("$$", j + 2)
            if k >= 0:
                found.append((j, k + 2, text[j + 2 : k], True))
                i = k + 2
                continue
        k = text.find("$", j + 1)
        if k < 0:
            break
        if k == j + 1:  # "$$" never closed: a dollar sign, then go on after it
            i = j + 1
            continue
        found.append((j, k + 1, text[j + 1 : k], False))
        i = k + 1
    return found


def _clean(element: ET.Element) -> bool:
    for node in element.iter():
        if not isinstance(node.tag, str) or node.tag.removeprefix(_NS) not in _ELEMENTS:
            return False
        for name in list(node.attrib):
            if name not in _ATTRIBUTES and name != "xmlns":
                return False
    return True


@lru_cache(maxsize=2048)
def safe_mathml(tex: str, display: bool) -> str | None:
    """MathML for the formula if it is within the bounds and comes out as MathML only."""
    if tex_problem(tex) is not None or not tex.strip():
        return None
    try:
        raw = latex_to_mathml(tex, display)
    except Exception:  # latex2mathml raises many kinds on malformed input
        return None
    if "<!" in raw or "<?" in raw:
        return None
    try:
        tree = ET.fromstring(raw)  # noqa: S314 - bounded input, no DOCTYPE (checked above)
    except ET.ParseError:
        return None
    if not _clean(tree):
        return None
    return ET.tostring(tree, encoding="unicode", short_empty_elements=False)


def _code(tex: str, display: bool) -> str:
    fence = "$$" if display else "$"
    return f'<code class="tex">{html.escape(fence + tex + fence)}</code>'


def _make_safe(tokens: list[Token]) -> None:
    for token in tokens:
        for child in token.children or ():
            if child.type != "link_open":
                continue
            href = str(child.attrGet("href") or "").strip()
            if href.lower().startswith(SAFE_SCHEMES):
                child.attrSet("rel", LINK_REL)
            else:
                child.attrs.pop("href", None)


def _split(content: str, mathml: list[str]) -> list[Token]:
    """A text token's content as text tokens and, for each formula stand-in, the formula's
    MathML as raw HTML (the only raw HTML in the output, and ours). A stand-in whose
    number names no formula (author text that happens to spell one) stays text."""
    out: list[Token] = []
    at = 0
    for match in _STAND_IN.finditer(content):
        k = int(match[1])
        if k >= len(mathml):
            continue
        if match.start() > at:
            out.append(Token("text", "", 0, content=content[at : match.start()]))
        out.append(Token("html_inline", "", 0, content=mathml[k]))
        at = match.end()
    if at < len(content):
        out.append(Token("text", "", 0, content=content[at:]))
    return out


def _put_back(tokens: list[Token], mathml: list[str], sources: list[str]) -> None:
    """Formulas back in place: as MathML in text, as their source in code (where the
    renderer escapes them); a stand-in inside a link's target stays inert text."""

    def source(text: str) -> str:  # one pass: linear, and a source is never re-read
        return _STAND_IN.sub(
            lambda m: sources[int(m[1])] if int(m[1]) < len(sources) else m[0], text
        )

    for token in tokens:
        if token.type in ("code_block", "fence"):
            token.content = source(token.content)
        children: list[Token] = []
        for child in token.children or ():
            if child.type == "code_inline":
                child.content = source(child.content)
                children.append(child)
            elif child.type == "text" and _PREFIX in child.content:
                children += _split(child.content, mathml)
            else:
                children.append(child)
        if token.children is not None:
            token.children = children


@lru_cache(maxsize=2048)
def render_author_markdown(text: str) -> str:
    """Author text (Markdown with $TeX$) as HTML safe to show to anyone."""
    if len(text) > MAX_CHARS:
        return f"<p>{html.escape(text[:MAX_CHARS])}…</p>"
    mathml: list[str] = []
    sources: list[str] = []
    body: list[str] = []
    i = total = 0
    for start, end, tex, display in formulas(text):
        total += len(tex)
        typeset = None
        if len(mathml) < MAX_FORMULAS and total <= MAX_TEX_TOTAL:
            typeset = safe_mathml(tex, display)
        mathml.append(typeset or _code(tex, display))
        sources.append(text[start:end])
        body += [text[i:start], _TOKEN.format(len(mathml) - 1)]
        i = end
    body.append(text[i:])
    tokens = _PARSER.parse("".join(body))
    _make_safe(tokens)
    _put_back(tokens, mathml, sources)
    return _PARSER.renderer.render(tokens, _PARSER.options, {})
