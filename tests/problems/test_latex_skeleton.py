"""The skeleton path (problems.engine.latex_skeleton) gives latex2mathml's own MathML,
character for character: for hand-picked shapes where a digit is read otherwise, and for
every math fragment of every template's statement, worked solution and hints over a
spread of seeds."""

from __future__ import annotations

import pytest
from latex2mathml.converter import convert

from problems.engine import registry
from problems.engine.hints import hints_for
from problems.engine.latex_skeleton import _skeleton_mathml, to_mathml
from problems.engine.render import _MATH, typeset
from problems.engine.variants import Variant

TRICKY = [
    r"512 \times 10^{3} = 512{,}000",
    r"10^35",  # one digit after ^: 10^3, then 5
    r"x_12 + y_{12}",
    r"\frac12 + \frac{1}{2} + \dfrac 3 4",
    r".5 + 0.5 + 1.5.3 + 2.",
    r"\text{8 GPUs} \times 80\,\mathrm{GB}",
    r"\mathrm{H100} \cdot 3",
    r"\sqrt[3]{27} = 3",
    r"\overset{4}{=} 4 \underset{5}{x}",
    r"5 mm + 3\,\mathrm{mm} + 2 em",
    r"\binom{8}{2} = 28",
    r"\sum_{i=1}^{8} i = 36",
    r"\left\lceil \frac{70}{8} \right\rceil = 9",
    r"0 \le 0.0 < 00",
    r"-3 - -4.25",
    r"100\% \text{ of } 7",
    r"\verb|12| 3",
    r"1\,024 \div 2^{10}",
]


@pytest.mark.parametrize("latex", TRICKY)
@pytest.mark.parametrize("display", ["inline", "block"])
def test_tricky_shapes_match_the_converter(latex, display):
    assert to_mathml(latex, display) == convert(latex, display=display)


def test_the_numbers_of_a_shape_share_one_conversion():
    _skeleton_mathml.cache_clear()
    to_mathml(r"512 \times 10^{3} = 512{,}000")
    to_mathml(r"640 \times 10^{3} = 640{,}000")
    info = _skeleton_mathml.cache_info()
    assert (info.misses, info.hits) == (1, 1)


def _fragments(variant: Variant) -> list[tuple[str, bool]]:
    texts = [variant.statement_markdown(), variant.solution_markdown()]
    texts += [hint.markdown for hint in hints_for(variant)]
    return [
        (m.group(1) if m.group(1) is not None else m.group(2), m.group(1) is not None)
        for text in texts
        for m in _MATH.finditer(text)
    ]


@pytest.mark.parametrize("template", registry.all_templates(), ids=lambda t: t.slug)
def test_every_fragment_of_every_template_matches_the_converter(template):
    for seed in (1, 7, 19, 2026, 90001):
        for latex, block in _fragments(Variant.from_seed(template.slug, seed)):
            text = typeset(latex.strip())
            display = "block" if block else "inline"
            assert to_mathml(text, display) == convert(text, display=display), text
