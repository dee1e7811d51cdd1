"""The memo format and its parser.

A memo is Markdown with nine `##` sections (SECTIONS); the last, Key figures, is a list
of `- Label: value unit` lines (FIGURES). The block structure comes from the parser the
memo's HTML is made with (memo_markdown.memo_blocks: markdown-it-py, linear in the
memo's length): a `## heading` inside a code block is not a section, and the headings,
paragraphs and list items are its top-level blocks, each read as the Markdown source of
its text. Nothing here re-implements Markdown; this module only names the blocks.

Headings match tolerantly (case, punctuation, "&" for "and", plurals, extra words:
"Weights & state budget" and "3. Fleet sizing" both match). Figure values are read by
the engine's strict answer reader and never evaluated; an unreadable value is kept with
the reader's message so the review can quote it. Input is bounded: past MAX_MEMO_CHARS
the memo is cut (and the review says so), a figure's label past MAX_LABEL_CHARS names no
figure and its value past MAX_FIGURE_CHARS is refused before any regular expression reads
it (a run of `*` or `(` made the ones below quadratic), and the reader refuses values over
64 characters, so a hostile memo costs no more than a long honest one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from markdown_it.token import Token

from capstone.memo_review.memo_markdown import memo_blocks
from problems.engine.reader import MAX_TEXT_CHARS, read_answer

MAX_MEMO_CHARS = 60_000
MAX_LABEL_CHARS = 120  # the longest alias is 32 characters; the rest is a note in brackets
MAX_FIGURE_CHARS = 4 * MAX_TEXT_CHARS  # a value, its emphasis and a note; the reader's own bound

SECTIONS = (
    "Assumptions",
    "Weights and state budget",
    "Demand",
    "Capacity per replica",
    "Fleet",
    "Measurement plan",
    "Failure-case test",
    "What would change the plan",
    "Key figures",
)
# The words a heading must contain to be that section (after _words normalises it).
_SECTION_WORDS = {
    "Assumptions": {"assumption"},
    "Weights and state budget": {"weight", "budget"},
    "Demand": {"demand"},
    "Capacity per replica": {"capacity", "replica"},
    "Fleet": {"fleet"},
    "Measurement plan": {"measurement"},
    "Failure-case test": {"failure"},
    "What would change the plan": {"change"},
    "Key figures": {"key", "figure"},
}
_STOP = {"and", "the", "a", "an", "of", "per", "for", "our", "in", "to"}


@dataclass(frozen=True)
class FigureSpec:
    key: str
    label: str
    unit: str  # default unit: a bare number is read in it
    unit_hint: str
    kind: str  # "choice", "count" (whole), "number" (a count's average), "quantity", "usd"
    aliases: tuple[str, ...] = ()


FIGURES = (
    FigureSpec("accelerator", "Accelerator", "", "(a slug or name from the candidates)", "choice"),
    FigureSpec(
        "tensor_parallel",
        "Tensor parallel",
        "",
        "GPUs per replica",
        "count",
        ("TP", "tensor parallelism", "tensor parallel degree", "GPUs per replica"),
    ),
    FigureSpec(
        "context",
        "Context per sequence",
        "tok",
        "tokens",
        "count",
        ("context", "context length", "context per request", "max context"),
    ),
    FigureSpec("weights", "Weights", "GB", "GB", "quantity", ("weights memory", "model weights")),
    FigureSpec(
        "kv_per_token",
        "KV per token",
        "KiB",
        "KiB",
        "quantity",
        ("KV cache per token", "KV bytes per token"),
    ),
    FigureSpec(
        "seqs_per_replica",
        "Concurrent sequences per replica",
        "",
        "sequences",
        "count",
        ("sequences per replica", "max sequences per replica", "concurrency per replica"),
    ),
    FigureSpec(
        "peak_concurrency",
        "Peak concurrent sequences",
        "",
        "sequences",
        "number",
        ("peak concurrency", "peak sequences", "peak sequences in flight"),
    ),
    FigureSpec("replicas", "Replicas", "", "", "count", ("replica count",)),
    FigureSpec("gpus", "GPUs", "", "", "count", ("total GPUs", "GPU count")),
    FigureSpec("monthly_cost", "Monthly cost", "USD", "USD", "usd", ("cost per month", "cost")),
)
FIGURE_BY_KEY = {f.key: f for f in FIGURES}
# Units a count may carry: none, or what it counts ("4 GPUs", "8,192 tokens", "12 replicas").
COUNT_UNITS = ("", "GPU", "seq", "tok", "replica", "request")


@dataclass(frozen=True)
class Section:
    name: str  # the canonical name from SECTIONS
    heading: str  # as the memo wrote it
    text: str  # the body, block texts joined by blank lines


@dataclass(frozen=True)
class Figure:
    key: str
    label: str  # as the memo wrote it
    text: str  # the value as written, emphasis and a trailing note removed
    value: float | None
    unit: str
    error: str = ""


@dataclass(frozen=True)
class ParsedMemo:
    sections: dict[str, Section] = field(default_factory=dict)
    figures: dict[str, Figure] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    truncated: bool = False

    def missing_sections(self) -> tuple[str, ...]:
        return tuple(s for s in SECTIONS if s not in self.sections)


def _words(text: str) -> list[str]:
    words = re.findall(r"[a-z0-9]+", text.casefold().replace("&", " and "))
    return [w[:-1] if len(w) > 3 and w.endswith("s") else w for w in words if w not in _STOP]


def section_name(heading: str) -> str | None:
    """The canonical section a heading names, or None; the best (most words) match wins."""
    words = set(_words(heading))
    hits = [s for s in SECTIONS if _SECTION_WORDS[s] <= words]
    return max(hits, key=lambda s: len(_SECTION_WORDS[s])) if hits else None


_LABELS = {
    " ".join(_words(alias)): spec.key for spec in FIGURES for alias in (spec.label, *spec.aliases)
}


# A note in brackets in a label ("Monthly cost (USD)"); quadratic on a run of "(", so it
# reads at most MAX_LABEL_CHARS.
_LABEL_NOTE = re.compile(r"\([^)]*\)")


def figure_key(label: str) -> str | None:
    if len(label) > MAX_LABEL_CHARS:
        return None
    label = _LABEL_NOTE.sub(" ", label)
    return _LABELS.get(" ".join(_words(label)))


# Emphasis and code marks around a value ("**141.1 GB**", "`h100-sxm`"), never between
# two characters of it: "2**64" must stay an (unreadable) expression, not become 264.
_EMPHASIS = re.compile(r"(?<![0-9A-Za-z*_`])[*_`]+|[*_`]+(?![0-9A-Za-z*_`])")
_NOTE = re.compile(r"\s*(\([^)]*\)|\[[^\]]*\])\s*$")
_PER_MONTH = re.compile(r"\s*(/\s*mo(nth)?|(per|a|each)\s+month)\s*$", re.IGNORECASE)
_LEADING_NUMBER = re.compile(r"^\s*[~≈$]?\s*[0-9][0-9,]*(\.[0-9]+)?")


def read_figure(spec: FigureSpec, label: str, raw: str) -> Figure:
    if len(raw) > MAX_FIGURE_CHARS:
        text = " ".join(raw.split())[:MAX_TEXT_CHARS]
        message = f"That value is too long (at most {MAX_FIGURE_CHARS} characters with its note)."
        return Figure(spec.key, label, text, None, "", message)
    text = _EMPHASIS.sub("", raw).strip()
    for _ in range(2):
        text = _NOTE.sub("", text).strip()
    if spec.kind == "choice":
        return Figure(spec.key, label, text, None, "", "" if text else "No value given.")
    if spec.kind == "usd":
        text = _PER_MONTH.sub("", text).strip()
    reading = read_answer(text, default_unit=spec.unit)
    if not reading.ok and spec.kind in ("count", "number"):
        # "12 replicas", "62 concurrent sequences": a count followed by what it counts.
        number = _LEADING_NUMBER.match(text)
        rest = text[number.end() :] if number else ""
        if number and re.fullmatch(r"\s+[A-Za-z][A-Za-z -]*", rest):
            reading = read_answer(number.group(0), default_unit=spec.unit)
    if not reading.ok:
        return Figure(spec.key, label, text, None, "", reading.error)
    if spec.kind in ("count", "number") and reading.unit not in COUNT_UNITS:
        return Figure(
            spec.key, label, text, None, "", f"{spec.label} is a count, not {reading.unit}."
        )
    if spec.kind == "count" and (reading.value < 0 or not float(reading.value).is_integer()):
        return Figure(spec.key, label, text, None, "", f"{spec.label} must be a whole number.")
    return Figure(spec.key, label, text, reading.value, reading.unit)


@dataclass(frozen=True)
class _Block:
    """A top-level block: its first token and every token up to its close."""

    tokens: list[Token]

    @property
    def kind(self) -> str:
        return self.tokens[0].type

    def text(self) -> str:
        """The block's text as its Markdown source: inline content and code, a line each."""
        parts = (t.content for t in self.tokens if t.type in ("inline", "fence", "code_block"))
        return "\n".join(p.strip("\n") for p in parts).strip()

    def item_texts(self) -> list[str]:
        """A list's items in document order (nested ones included), each the text of its
        own paragraphs (a nested list's text is its own items')."""
        items: list[list[str]] = []
        open_items: list[tuple[int, list[str]]] = []  # (level, its paragraphs' text)
        for t in self.tokens:
            if t.type == "list_item_open":
                items.append([])
                open_items.append((t.level, items[-1]))
            elif t.type == "list_item_close":
                open_items.pop()
            elif t.type == "inline" and open_items and t.level == open_items[-1][0] + 2:
                open_items[-1][1].append(t.content)
        return ["\n".join(parts).strip() for parts in items]


def _blocks(tokens: list[Token]) -> list[_Block]:
    blocks: list[_Block] = []
    depth = 0
    for t in tokens:
        if depth == 0:
            blocks.append(_Block([t]))
        else:
            blocks[-1].tokens.append(t)
        depth += t.nesting
    return blocks


def _figure_lines(blocks: list[_Block]) -> list[str]:
    """`Label: value` candidates of the Key figures section: the lines of its list items,
    or of a paragraph when the memo wrote them without list markers. A line, not an item:
    a line after an item without a blank line continues the item (CommonMark's lazy
    continuation), and must not become part of its value."""
    texts: list[str] = []
    for block in blocks:
        if block.kind in ("bullet_list_open", "ordered_list_open"):
            texts += block.item_texts()
        elif block.kind == "paragraph_open":
            texts.append(block.text())
    lines = (line.strip() for text in texts for line in text.splitlines())
    return [line for line in lines if ":" in line]


def parse_memo(text: str) -> ParsedMemo:
    """Sections and key figures of a memo. Never raises on any text."""
    if not isinstance(text, str):
        text = ""
    truncated = len(text) > MAX_MEMO_CHARS
    text = text[:MAX_MEMO_CHARS].replace("\r\n", "\n").replace("\r", "\n")

    grouped: list[tuple[str, list[_Block]]] = []
    for block in _blocks(memo_blocks(text)):
        if block.kind == "heading_open" and block.tokens[0].tag in ("h1", "h2"):
            grouped.append((block.text(), []))
        elif grouped:
            grouped[-1][1].append(block)

    sections: dict[str, Section] = {}
    figures: dict[str, Figure] = {}
    notes: list[str] = []
    if truncated:
        notes.append(f"The memo is longer than {MAX_MEMO_CHARS:,} characters; the rest was cut.")
    for heading, blocks in grouped:
        name = section_name(heading)
        if name is None or name in sections:
            continue
        body = "\n\n".join(t for t in (b.text() for b in blocks) if t)
        sections[name] = Section(name, heading, body)
        if name != "Key figures":
            continue
        for line in _figure_lines(blocks):
            label, _, value = line.partition(":")
            key = figure_key(label)
            if key is None:
                notes.append(f"Unknown key figure {label.strip()[:40]!r} ignored.")
            elif key in figures:
                notes.append(f"Key figure {label.strip()[:40]!r} given twice; the first counts.")
            else:
                figures[key] = read_figure(FIGURE_BY_KEY[key], label.strip(), value)
    return ParsedMemo(sections, figures, tuple(notes), truncated)
