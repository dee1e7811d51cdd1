"""Markdown with LaTeX to HTML: math becomes MathML, tool output stays text."""

from problems.engine.render import render_markdown

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
