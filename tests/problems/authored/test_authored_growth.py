"""Author text's renderer grows linearly with hostile input, counted in calls, not seconds.

An authored statement is rendered for every learner who draws the template, so a text
whose rendering grows faster than its length would stall a worker on every view. Each
hostile pattern (the memo's, tests/growth.py, and the ones only author text has: formulas
beside code spans, runs of dollar signs, formulas at every bound) is rendered at 1,000 and
20,000 characters (the most the format allows a text; a linear renderer makes about 20
times the calls, a quadratic one about 400), and its call count may grow at most GROWTH
times faster than the text. Putting formulas back
into code spans once replaced every formula's stand-in in every span: 48,000 characters
of "`a` $x$ " took 6.7 s.

The count cannot see a C call's own work, so what reaches latex2mathml (one call per
formula, its own time unbounded by the count) is held to the bounds instead: at most
MAX_FORMULAS formulas, each within MAX_TEX_CHARS and MAX_TEX_DEPTH, MAX_TEX_TOTAL in all.
"""

from __future__ import annotations

import pytest

from problems.authored import markup
from problems.authored.schema import MAX_LONG_TEXT
from tests.growth import FIGURE_PATTERNS, PATTERNS, OverBudget, adversarial, calls

SIZES = (1_000, MAX_LONG_TEXT)
GROWTH = 3  # as the memo's: fixed costs, a longer tail of tokens


def _repeat(unit: str, n: int) -> str:
    return (unit * (n // len(unit) + 1))[:n]


TEX_PATTERNS = {
    "formulas-in-code": lambda n: _repeat("`a` $x$ ", n),
    "formulas-distinct": lambda n: _repeat("".join(f"$x_{i}$ `c{i}` " for i in range(997)), n),
    "dollar-runs": lambda n: _repeat("$$$ $", n),
    "unclosed-dollars": lambda n: _repeat("$a ", n),
    "formula-openers-in-links": lambda n: _repeat("[$a$](", n),
    "deep-braces": lambda n: _repeat("${{{{{{{{{{{{{{{{{{{{{{{{x", n),
    "long-formulas": lambda n: _repeat("$" + r"\frac{a}{b}" * 95 + "$ ", n),
    "stand-in-lookalikes": lambda n: _repeat("AUTHMATH0Z AUTHMATH99999Z `AUTHMATH1Z` $y$ ", n),
}
# The memo's Markdown patterns, less its key-figure lines (memo syntax, plain text here).
AUTHOR_PATTERNS = {
    **{name: PATTERNS[name] for name in PATTERNS if name not in FIGURE_PATTERNS},
    **TEX_PATTERNS,
}


def _render(text: str) -> str:
    """One render with the caches empty, so every size does all its work."""
    markup.safe_mathml.cache_clear()
    return markup.render_author_markdown.__wrapped__(text)


@pytest.mark.parametrize("pattern", AUTHOR_PATTERNS)
def test_author_text_work_grows_linearly(pattern):
    def text(n: int) -> str:
        return AUTHOR_PATTERNS[pattern](n) if pattern not in PATTERNS else adversarial(pattern, n)

    base = calls(lambda: _render(text(SIZES[0])))
    for size in SIZES[1:]:
        budget = GROWTH * base * size // SIZES[0]
        body = text(size)
        try:
            calls(lambda body=body: _render(body), budget=budget)
        except OverBudget:
            pytest.fail(
                f"{size:,} characters of {pattern}: over {budget:,} calls ({base:,} at 1,000)"
            )


@pytest.mark.parametrize("pattern", TEX_PATTERNS)
def test_only_bounded_tex_reaches_the_converter(pattern, monkeypatch):
    sent: list[str] = []
    convert = markup.latex_to_mathml

    def spy(tex: str, display: bool) -> str:
        sent.append(tex)
        return convert(tex, display)

    monkeypatch.setattr(markup, "latex_to_mathml", spy)
    body = TEX_PATTERNS[pattern](markup.MAX_CHARS)
    _render(body)
    assert len(sent) <= markup.MAX_FORMULAS
    assert sum(map(len, sent)) <= markup.MAX_TEX_TOTAL
    assert all(markup.tex_problem(tex) is None for tex in sent)


def test_the_formulas_pattern_reaches_the_converter():
    """The converter spy above would pass on a renderer that converted nothing."""
    html = _render(TEX_PATTERNS["formulas-distinct"](2_000))
    assert html.count("<math") > 100 and "<code>c5</code>" in html


def test_stand_ins_are_replaced_once():
    """A formula's source that spells another formula's stand-in stays as written, and a
    stand-in number that names no formula stays text."""
    html = _render("$x$ `$AUTHMATH0Z$` `AUTHMATH7Z`")
    assert "<code>$AUTHMATH0Z$</code>" in html and "<code>AUTHMATH7Z</code>" in html
