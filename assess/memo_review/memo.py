"""The memo format and its parser.

A memo is Markdown with nine `##` sections (SECTIONS); the last, Key figures, is a list
of `- Label: value unit` lines (FIGURES). The block structure comes from Python-Markdown,
the library the project renders with, run with the renderer's extensions: its
preprocessors set fenced code aside (a `## heading` inside a code block is not a
section) and its block parser gives the headings, paragraphs and list items. Nothing
here re-implements Markdown; this module only names the blocks.

Headings match tolerantly (case, punctuation, "&" for "and", plurals, extra words:
"Weights & state budget" and "3. Fleet sizing" both match). Figure values are read by
the engine's strict answer reader and never evaluated; an unreadable value is kept with
the reader's message so the review can quote it. Input is bounded: past MAX_MEMO_CHARS
the memo is cut (and the review says so), and the reader refuses values over 64
characters, so a hostile memo costs no more than a long honest one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import markdown

from problems.engine.reader import read_answer

MAX_MEMO_CHARS = 60_000

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


def figure_key(label: str) -> str | None:
    label = re.sub(r"\([^)]*\)", " ", label)
    return _LABELS.get(" ".join(_words(label)))


# Emphasis and code marks around a value ("**141.1 GB**", "`h100-sxm`"), never between
# two characters of it: "2**64" must stay an (unreadable) expression, not become 264.
_EMPHASIS = re.compile(r"(?<![0-9A-Za-z*_`])[*_`]+|[*_`]+(?![0-9A-Za-z*_`])")
_NOTE = re.compile(r"\s*(\([^)]*\)|\[[^\]]*\])\s*$")
_PER_MONTH = re.compile(r"\s*(/\s*mo(nth)?|(per|a|each)\s+month)\s*$", re.IGNORECASE)
_LEADING_NUMBER = re.compile(r"^\s*[~≈$]?\s*[0-9][0-9,]*(\.[0-9]+)?")


def read_figure(spec: FigureSpec, label: str, raw: str) -> Figure:
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


def _block_text(element) -> str:
    return "".join(element.itertext()).strip()


def _figure_lines(blocks) -> list[str]:
    """`Label: value` candidates of the Key figures section: list items, or the lines of
    a paragraph when the memo wrote them without list markers."""
    lines: list[str] = []
    for el in blocks:
        if el.tag in ("ul", "ol"):
            lines += [_block_text(li) for li in el.iter("li")]
        elif el.tag == "p":
            lines += [line.strip() for line in _block_text(el).splitlines()]
    return [line for line in lines if ":" in line]


def parse_memo(text: str) -> ParsedMemo:
    """Sections and key figures of a memo. Never raises on any text."""
    if not isinstance(text, str):
        text = ""
    truncated = len(text) > MAX_MEMO_CHARS
    text = text[:MAX_MEMO_CHARS].replace("\r\n", "\n").replace("\r", "\n")
    md = markdown.Markdown(extensions=["fenced_code", "tables"])
    lines = text.split("\n")
    for prep in md.preprocessors:
        lines = prep.run(lines)
    root = md.parser.parseDocument(lines).getroot()

    grouped: list[tuple[str, list]] = []
    for el in root:
        if el.tag in ("h1", "h2"):
            grouped.append((_block_text(el), []))
        elif grouped:
            grouped[-1][1].append(el)

    sections: dict[str, Section] = {}
    figures: dict[str, Figure] = {}
    notes: list[str] = []
    if truncated:
        notes.append(f"The memo is longer than {MAX_MEMO_CHARS:,} characters; the rest was cut.")
    for heading, blocks in grouped:
        name = section_name(heading)
        if name is None or name in sections:
            continue
        body = "\n\n".join(t for t in (_block_text(b) for b in blocks) if t)
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
