"""Markdown with LaTeX to HTML: math becomes MathML, tool output stays text, and formulas
read as a reader expects (upright units, one number per thousands group, fences that
stretch)."""

import random
import re
import xml.etree.ElementTree as ET

import pytest

from problems.engine import registry
from problems.engine.render import latex_to_mathml, render_markdown
from problems.engine.solutions import unit_tex

FENCE = "```"


def test_inline_math_becomes_mathml_with_underscores_intact():
    html = render_markdown("Weights $W_{fp16} = 2N$ bytes.")
    assert "<math" in html and "<msub>" in html and "$" not in html


def test_a_fenced_block_keeps_dollars_and_markup_as_text():
    # A shell prompt and a price inside tool output are not math, and angle brackets are
    # escaped rather than parsed: the block reaches the page as it was generated.
    text = (
        "Cost $c_1$ first.\n\n"
        f"{FENCE}text\n$ nvidia-smi --query-gpu=index --format=csv\n<b>12 $ / h</b>\n{FENCE}\n\n"
        "Then $x^2$."
    )
    html = render_markdown(text)
    assert "<pre><code" in html
    block = html[html.index("<pre>") : html.index("</pre>")]
    assert "$ nvidia-smi --query-gpu=index --format=csv" in block
    assert "&lt;b&gt;12 $ / h&lt;/b&gt;" in block and "<math" not in block
    assert html.count("<math") == 2  # both formulas outside the block still render


def test_two_blocks_and_math_between_them():
    text = f"{FENCE}\nA $ 1\n{FENCE}\n\n$y$\n\n~~~text\nB $ 2\n~~~\n"
    html = render_markdown(text)
    assert html.count("<pre>") == 2 and html.count("<math") == 1
    assert "A $ 1" in html and "B $ 2" in html


# ------------------------------------------------------------- presentation of formulas

MML = "{http://www.w3.org/1998/Math/MathML}"


def tree(mathml: str) -> ET.Element:
    decoded = re.sub(r"&#x([0-9A-Fa-f]+);", lambda m: chr(int(m.group(1), 16)), mathml)
    return ET.fromstring(decoded)  # noqa: S314 (our own renderer's output)


def identifiers(mathml: str) -> list[tuple[str, str | None]]:
    """(text, mathvariant) of every <mi>: a one-letter <mi> without mathvariant is italic."""
    return [("".join(mi.itertext()), mi.get("mathvariant")) for mi in tree(mathml).iter(MML + "mi")]


@pytest.mark.parametrize("unit", ["B", "W", "s", "h", "GB", "GiB", "B/s", "TFLOP/s", "%"])
def test_units_are_upright(unit):
    mathml = latex_to_mathml(f"262{{,}}144\\ {unit_tex(unit)}")
    letters = [(t, v) for t, v in identifiers(mathml) if t.isalpha() or t == "%"]
    assert letters and all(v == "normal" for _, v in letters), letters


def test_one_roman_letter_stays_roman_beside_italic_variables():
    # latex2mathml dropped the font of \mathrm with a single letter: B came out as a variable.
    assert identifiers(latex_to_mathml(r"W = N b = 4\ \mathrm{B}")) == [
        ("W", None),
        ("N", None),
        ("b", None),
        ("B", "normal"),
    ]
    assert identifiers(latex_to_mathml(r"x_{\mathrm{B}}"))[-1] == ("B", "normal")


@pytest.mark.parametrize(
    ("latex", "number"),
    [
        ("65{,}536", "65,536"),
        ("65,536", "65,536"),  # a bare comma between digit groups is a separator too
        ("1{,}234{,}567", "1,234,567"),
        ("12{,}345.75", "12,345.75"),
        ("2^{20} \\times 1{,}024", "1,024"),
    ],
)
def test_thousands_separators_make_one_number_with_no_space(latex, number):
    mathml = latex_to_mathml(latex)
    assert f"<mn>{number}</mn>" in mathml
    assert "&#x0002C;</mo>" not in mathml  # no comma operator, which spaces after itself


def test_a_comma_that_is_not_a_separator_stays_punctuation():
    mathml = latex_to_mathml(r"f(1, 23) = 12{,}34")
    assert "<mn>1</mn><mo>&#x0002C;</mo><mn>23</mn>" in mathml  # not three digits
    assert "<mn>12,34</mn>" not in mathml


@pytest.mark.parametrize(
    "latex",
    [
        r"\lfloor 8 / 3 \rfloor = 2",
        r"\lceil \frac{7}{2} \rceil",
        r"\left\lfloor{\frac{a}{b}}\right\rfloor",
    ],
)
def test_floor_and_ceiling_brackets_stretch(latex):
    fences = [
        mo
        for mo in tree(latex_to_mathml(latex, display=True)).iter(MML + "mo")
        if mo.text in "⌊⌋⌈⌉"
    ]
    assert len(fences) == 2
    assert all(mo.get("stretchy") == "true" and mo.get("fence") == "true" for mo in fences)
    assert [mo.get("form") for mo in fences] == ["prefix", "postfix"]


def test_the_max_sequences_solution_reads_as_it_should():
    """The issue's example: units upright, 262,144 one number, stretching floor brackets."""
    template = registry.get("kv-max-sequences")
    html = render_markdown(template.solution(template.generate(random.Random(3))))
    assert "262,144" in html or "131,072" in html or "65,536" in html
    assert not re.search(r"</mn>(?:<mrow>)?<mo>&#x0002C;</mo>", html)
    roots = [tree(m) for m in re.findall(r"<math .*?</math>", html, re.S)]
    units = [
        mi
        for root in roots
        for mtext in root.iter(MML + "mrow")
        for mi in mtext.iter(MML + "mi")
        if "".join(mi.itertext()) == "B"
    ]
    assert units and all(mi.get("mathvariant") == "normal" for mi in units)
    floors = [mo for root in roots for mo in root.iter(MML + "mo") if mo.text == "⌊"]
    assert floors and all(mo.get("stretchy") == "true" for mo in floors)


def test_the_reused_converter_keeps_nothing_from_one_text_to_the_next():
    """render_markdown reuses one Markdown converter per thread (reset between texts):
    a text renders the same alone, after a table and a fenced block, and in a thread of
    its own."""
    import threading

    render = render_markdown.__wrapped__  # past the cache of rendered texts
    first = "Weights: **70** GB, so $n = 2$ cards.\n\n- one\n- two\n"
    other = "| a | b |\n|---|---|\n| 1 | 2 |\n\n```\n$ nvidia-smi\n```\n\n[x]: http://e.com\n"
    alone = render(first)
    render(other)
    assert render(first) == alone
    seen = []
    thread = threading.Thread(target=lambda: seen.append(render(first)))
    thread.start()
    thread.join()
    assert seen == [alone]
