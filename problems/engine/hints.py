r"""Stepwise hints, cut from a variant's worked solution.

A worked solution is Markdown in steps: paragraphs, each display equation
(`$$ lhs = formula = values = result $$`, see solutions.step) going with the prose that
introduces it, and a fenced block (tool output) kept whole. The hints are those steps
in order with three cuts, so that none gives an answer away:

- the last step is left out (it is where a solution states its result);
- every equation loses its result: the text after its last `=` becomes `= \,?`, so a
  hint shows the formula and this variant's numbers in it, and the learner works the
  arithmetic;
- every bold span (how solutions state an answer: **30 leaves**, **memory-bound**)
  becomes **?**;

and one check: a step whose text still names a part's answer in a form the solutions
print numbers in (6 significant figures, with or without thousands separators, also
a power of ten or of 1024 times it, as 365 GB reads 365,072,220,160 bytes; a whole
answer also as the fraction it rounds) is dropped. Short numbers are in every other
sentence, so below 10 an answer, and at any size a scaled one, is matched only by a
number printed to three figures or more (or in scientific notation): 4.015 GB as
4.015130624 x 10^9 bytes and 0.531 bytes per parameter are answers, the 2 of 40^2/2 is
not 20 leaves.

A step that states an answer all the same gives its leading sentences before the one
that does, or failing those the leading clauses of its first sentence. A solution of
one paragraph gives its sentences as steps instead. So every template has at least one
hint (tests/problems/test_hints.py sweeps them all with a few seeds).

Hints belong to the question, not to one part: a solution's steps feed several parts
(the leaves of a leaf-spine fabric decide its spines), so one sequence serves them all
and the service records which part asked.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from problems.engine.render import render_markdown

_BLOCKS = re.compile(r"\n[ \t]*\n")
_FENCE_OPEN = re.compile(r"^(```|~~~)")
_DISPLAY = re.compile(r"\$\$(.+?)\$\$", re.S)
_BOLD = re.compile(r"\*\*(.+?)\*\*", re.S)
# A sentence ends at ". " (or "! ", "? ") outside math, before a capital or math.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z$*])")
_INLINE_MATH = re.compile(r"\$[^$]+\$")


@dataclass(frozen=True)
class Hint:
    index: int  # 1-based
    total: int
    markdown: str
    # The template's own renderer for text that is not ours (problems/authored).
    render: Callable[[str], str] | None = None

    @property
    def html(self) -> str:
        return (self.render or render_markdown)(self.markdown)


def _blocks(markdown: str) -> list[str]:
    """Blank-line separated blocks, a fenced block kept whole however many blank lines
    it holds."""
    blocks: list[str] = []
    fence: list[str] | None = None
    for chunk in _BLOCKS.split(markdown.strip()):
        if fence is not None:
            fence.append(chunk)
            if chunk.rstrip().endswith(("```", "~~~")):
                blocks.append("\n\n".join(fence))
                fence = None
            continue
        lines = chunk.strip().splitlines()
        if not lines:
            continue
        opens = _FENCE_OPEN.match(lines[0].strip())
        if opens and not (len(lines) > 1 and lines[-1].strip().startswith(opens.group(1))):
            fence = [chunk]
            continue
        blocks.append(chunk.strip())
    if fence is not None:
        blocks.append("\n\n".join(fence))
    return blocks


def solution_steps(markdown: str) -> list[str]:
    """The worked solution's steps: a display equation joins the prose before it; a
    solution of one block is cut into its sentences."""
    steps: list[str] = []
    for block in _blocks(markdown):
        if block.startswith("$$") and steps and not steps[-1].startswith("```"):
            steps[-1] = f"{steps[-1]}\n\n{block}"
        else:
            steps.append(block)
    if len(steps) == 1 and not steps[0].startswith("```"):
        steps = _sentences(steps[0])
    return steps


def _sentences(text: str) -> list[str]:
    """Split prose into sentences without cutting inside $...$ (a decimal point or
    "s.t." inside a formula is no sentence end)."""
    masked = _INLINE_MATH.sub(lambda m: "#" * len(m.group(0)), text)
    cuts = [m.start() for m in _SENTENCE_END.finditer(masked)]
    pieces, start = [], 0
    for cut in cuts:
        pieces.append(text[start:cut].strip())
        start = cut
    pieces.append(text[start:].strip())
    return [p for p in pieces if p]


def _without_result(match: re.Match[str]) -> str:
    body = match.group(1)
    depth, last = 0, -1
    for i, ch in enumerate(body):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "=" and depth == 0:
            last = i
    if last < 0:
        return match.group(0)
    return f"$$ {body[:last].strip()} = \\,? $$"


def redact(step: str) -> str:
    """The step with every equation's result and every bold answer cut."""
    return _BOLD.sub("**?**", _DISPLAY.sub(_without_result, step))


_NUMBER = re.compile(
    r"(\d(?:\d|,|\{,\})*(?:\.\d+)?)(?:\s*\\times\s*10\^\{?(-?\d+)\}?)?|10\^\{?(-?\d+)\}?"
)
_SCALES = tuple(10.0**k for k in range(-12, 13)) + tuple(1024.0**k for k in range(1, 5))


def _significant(mantissa: str) -> int:
    """Significant figures of a printed mantissa: 0.0312 has 3, 3,800 has 2."""
    digits = mantissa.replace("{,}", "").replace(",", "").replace(".", "").lstrip("0")
    return len(digits.rstrip("0")) if "." not in mantissa else len(digits)


def _numbers(text: str) -> list[tuple[float, int]]:
    """Every number printed in the text with its significant figures: 3,800,
    65{,}536, 4.05 \times 10^{11}, 10^{9} (one figure)."""
    found = []
    for m in _NUMBER.finditer(text):
        if m.group(3) is not None:
            found.append((10.0 ** int(m.group(3)), 1))
            continue
        value = float(m.group(1).replace("{,}", "").replace(",", ""))
        figures = _significant(m.group(1))
        if m.group(2):  # 2 \times 10^{10} bytes: how solutions convert units, however short
            value *= 10.0 ** int(m.group(2))
            figures = max(figures, 3)
        found.append((value, figures))
    return found


def _near(value: float, printed: list[tuple[float, int]]) -> bool:
    """A printed number within 4 significant figures of the value, or of the value times
    a power of ten or of 1024 when printed to three figures or more (so the 2 of
    "40^2 / 2" is not 20 leaves, while 4.015130624 x 10^9 bytes is 4.015 GB). Below 10
    the value itself also needs three figures (the 4 of "4 bits" is not 4.015 GB)."""
    for scale in _SCALES:
        least = 1 if abs(value) >= 10 and scale == 1.0 else 3
        target = abs(value) * scale
        if any(n >= least and abs(x - target) <= 5e-4 * target for x, n in printed):
            return True
    return False


def _rounds_to(value: float, printed: list[tuple[float, int]]) -> bool:
    """A whole answer of 10 or more printed as the fraction it is rounded from, to four
    figures or more: "the budget holds 1,012.736 blocks" states 1,012 whole blocks,
    while an input's "about 11.8 GB" is not 12 pods."""
    return (
        float(value).is_integer()
        and abs(value) >= 10
        and any(n >= 4 and not x.is_integer() and abs(x - abs(value)) < 1 for x, n in printed)
    )


def states_answer(text: str, answers: dict[str, float | int | str]) -> bool:
    """Does the text print one of the answers? A word answer as a word (any case); a
    number as itself or a power of ten or of 1024 times itself (365 GB printed as
    365,072,220,160 bytes, 4.015 GB as 4.015 \times 10^{9} bytes), to 4 significant
    figures, or a whole answer as the fraction it rounds; short printed numbers count
    only where _near and _rounds_to say."""
    printed = [(x, n) for x, n in _numbers(text) if x]
    for value in answers.values():
        if isinstance(value, str):
            if re.search(rf"(?<![\w-]){re.escape(value)}", text, re.I):
                return True
        elif value and (_near(number := float(value), printed) or _rounds_to(number, printed)):
            return True
    return False


_CLAUSE_END = re.compile(r"(?<=[;:,])\s+")
_CODE = re.compile(r"`[^`]*`|“[^”]*”")
_WORD = re.compile(r"[A-Za-z]{2,}")


def _clauses(sentence: str) -> list[str]:
    """The sentence cut after each ; : or , that is not inside math, code or quotes."""
    masked = _CODE.sub(lambda m: "#" * len(m.group(0)), sentence)
    masked = _INLINE_MATH.sub(lambda m: "#" * len(m.group(0)), masked)
    cuts = [m.start() for m in _CLAUSE_END.finditer(masked)]
    return [sentence[a:b].strip() for a, b in zip([0, *cuts], [*cuts, len(sentence)], strict=True)]


def _leading(pieces: list[str], answers: dict[str, float | int | str]) -> list[str]:
    kept: list[str] = []
    for piece in pieces:
        if states_answer(piece, answers):
            break
        kept.append(piece)
    return kept


def _unstated(step: str, answers: dict[str, float | int | str]) -> str | None:
    """The step, or its leading sentences up to the first that states an answer, or
    failing those the leading clauses of that first sentence (None when even its first
    clause does). A display equation stays with the sentence before it."""
    if not states_answer(step, answers):
        return step
    sentences = _sentences(step.partition("$$")[0])
    kept = _leading(sentences, answers)
    if not kept and sentences:
        kept = _leading(_clauses(sentences[0]), answers)
        if kept:
            kept[-1] = kept[-1].rstrip(";:,") + " …"
    return " ".join(kept) or None


def _says_something(hint: str) -> bool:
    """More than a cut: a hint of a few words around a **?** helps no one."""
    return len(_WORD.findall(_BOLD.sub("", hint))) >= 3


def _words_cut(markdown: str, answers: dict[str, float | int | str]) -> str:
    """The solution with every word answer written as "…"."""
    for value in answers.values():
        if isinstance(value, str):
            markdown = re.sub(rf"(?<![\w-]){re.escape(value)}", "…", markdown, flags=re.I)
    return markdown


def hint_steps(solution_markdown: str, answers: dict[str, float | int | str]) -> list[str]:
    """The hint texts (Markdown), in order: see the module docstring. When every step
    names a word answer (a diagnosis that reasons with the word "driver" from its first
    clause), the steps are taken again with those words cut."""
    for markdown in (solution_markdown, _words_cut(solution_markdown, answers)):
        steps = [_unstated(redact(s), answers) for s in solution_steps(markdown)[:-1]]
        hints = [s for s in steps if s and _says_something(s)]
        if hints:
            return hints
    return []


def hints_for(variant) -> list[Hint]:
    """Every hint of a variant (a problems.engine.variants.Variant). An incident drill
    has none: its worked solution is the expert path, and a step of it names the
    fault's location."""
    template = variant.template
    if getattr(template, "kind", "template") == "drill":
        return []
    # An authored template may give its own hints; else they are cut from its solution.
    own = getattr(template, "hints", None)
    texts = own(variant.params) if callable(own) else None
    if texts is None:
        answers = {name: part.value for name, part in variant.parts.items()}
        texts = hint_steps(variant.solution_markdown(), answers)
    render = getattr(template, "render_html", None)
    return [
        Hint(index=i + 1, total=len(texts), markdown=t, render=render) for i, t in enumerate(texts)
    ]
