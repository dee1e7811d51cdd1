"""Author text: values inserted with their units, and hostile Markdown, HTML and TeX in any
text field rendered inert by the renderer the engine uses for authored templates."""

import copy
import random
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from problems.authored import markup
from problems.authored.loader import template_from_data, validate
from problems.authored.markup import render_author_markdown
from problems.authored.text import format_number
from problems.engine.hints import hints_for
from problems.engine.render import render_markdown
from problems.engine.variants import Variant
from tests.growth import calls

EXAMPLE = yaml.safe_load((Path(__file__).parent / "data" / "team-kv-budget.yaml").read_text())

SCRIPT = "<script>alert(1)</script>"
IMG = '<img src=x onerror="alert(1)">'
LINK = "[click me](javascript:alert(1))"
TEX_TEXT = r"$\text{<script>alert(2)</script>}$"
TEX_HREF = r"$\href{javascript:alert(3)}{x}$"
TEX_LONG = "$" + r"\frac{1}{2}" * 110 + "$"  # 1,210 characters of TeX
TEX_DEEP = "$" + "{ " * 30 + "x" + " }" * 30 + "$"  # spaced: "{{" opens a value
ALLOWED = " ".join([SCRIPT, IMG, LINK, TEX_TEXT, TEX_HREF])  # valid, and shown as text
HOSTILE = " ".join([ALLOWED, TEX_DEEP])


class _Tags(HTMLParser):
    """Every element and attribute a browser would build from the HTML."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def assert_inert(html: str) -> None:
    """No element that runs or fetches anything, no event handler, no unsafe link."""
    parser = _Tags()
    parser.feed(html)
    for tag, attrs in parser.tags:
        assert tag not in {"script", "img", "iframe", "object", "embed", "style", "svg"}, tag
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
        assert "style" not in attrs and "src" not in attrs
        href = attrs.get("href")
        assert href is None or href.startswith(("http://", "https://", "mailto:", "#")), href


def test_hostile_markdown_is_escaped_text():
    html = render_author_markdown(HOSTILE)
    assert_inert(html)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html
    assert "<a>click me</a>" in html  # the text stays, the target goes
    # latex2mathml would copy \text{<script>} into its output and \href into an attribute:
    assert r'<code class="tex">$\text{&lt;script&gt;alert(2)&lt;/script&gt;}$</code>' in html
    assert r'<code class="tex">$\href{javascript:alert(3)}{x}$</code>' in html
    # the engine's own renderer, for our templates, would not have been safe here
    with pytest.raises(AssertionError):
        assert_inert(render_markdown(HOSTILE))


def test_oversized_and_deeply_nested_tex_is_shown_as_source_not_typeset():
    """What is shown; that no such formula reaches the converter, and that the work grows
    linearly with the text, is test_authored_growth.py's (in calls, not seconds)."""
    long_html = render_author_markdown(TEX_LONG)
    deep_html = render_author_markdown(TEX_DEEP)
    many = render_author_markdown("$x$ " * 2000)
    assert "<math" not in long_html and long_html.startswith('<p><code class="tex">$\\frac')
    assert "<math" not in deep_html and "{ { { {" in deep_html
    assert many.count("<math") == 300  # MAX_FORMULAS typeset, the rest as source
    assert render_author_markdown("$x^2$").count("<math") == 1


def test_safe_links_keep_their_target_with_rel():
    html = render_author_markdown("[docs](https://docs.vllm.ai) ![a](http://x/y.png)")
    assert '<a href="https://docs.vllm.ai" rel="nofollow noopener noreferrer">docs</a>' in html
    assert '<span class="img-alt">[image: a]</span>' in html


def test_a_formula_stand_in_never_lands_in_an_attribute():
    html = render_author_markdown("[x](http://a/AUTHMATH0Z) $\\frac{a}{b}$ `code $y$`")
    assert 'href="http://a/AUTHMATH0Z"' in html
    assert "<code>code $y$</code>" in html
    assert html.count("<math") == 1


@pytest.mark.parametrize(
    "where",
    ["statement", "solution", "hints", "label", "feedback"],
)
def test_hostile_text_in_every_field_comes_out_inert(where):
    def put(text):
        data = copy.deepcopy(EXAMPLE)
        if where in ("statement", "solution"):
            data[where] = text + " {{tokens}}"
        elif where == "hints":
            data["hints"] = [text]
        elif where == "label":
            data["parts"][0]["label"] = text
        else:
            data["parts"][0]["misconceptions"][0]["feedback"] = text
        return data

    # TeX past the bounds is refused by validation, naming the field ...
    for tex, why in (
        (TEX_DEEP, "nests braces more than 20"),
        (TEX_LONG, "a formula is 1,210 characters"),
    ):
        problems = validate(put(tex))
        assert len(problems) == 1 and why in problems[0], problems
    # ... and the rest is allowed as text, and shown as text.
    data = put(ALLOWED)
    assert validate(data) == []
    template = template_from_data(data)
    variant = Variant(template, template.generate(random.Random(1)))
    rendered = [
        variant.statement_html(),
        variant.solution_html(),
        *(h.html for h in hints_for(variant)),
        *(template.render_html(p.label) for p in variant.parts.values()),
        *(template.render_html(m.feedback) for m in variant.misconceptions),
    ]
    for html in rendered:
        assert_inert(html)
    assert any("&lt;script&gt;alert(1)" in html for html in rendered)


def test_inserted_values_and_units():
    data = copy.deepcopy(EXAMPLE)
    data["statement"] = (
        "{{gpu.name}}: {{gpu.memory_bytes | GB}}, {{gpu.memory_bytes | GiB}}, "
        "{{tokens * 1000 | ktok}}, {{tokens / 3}}, {{tokens > 1}}, $x = {{model.n_layers}}$"
    )
    template = template_from_data(data)
    params = template.generate(random.Random(0))
    assert params.gpu == "h200" and params.model == "llama-3.1-70b"
    text = template.statement(params)
    assert text == (
        f"H200 SXM 141GB: 141 GB, 131.316 GiB, {params.tokens} ktok, "
        f"{format_number(params.tokens / 3)}, true, $x = 80$"
    )


@pytest.mark.parametrize(
    "value, shown",
    [(65536, "65536"), (0.5, "0.5"), (1 / 3, "0.333333"), (2.5e-7, "2.50000e-07"), (0, "0")],
)
def test_number_format(value, shown):
    assert format_number(value) == shown


_FRAGMENTS = st.sampled_from(
    ["<script>", "</script>", "<img src=x onerror=alert(1)>", "<a href='javascript:x'>", "[a](",
     "javascript:alert(1)", ")", "](", "![i](", "http://x", "$", "$$", "\\text{", "\\href{", "}",
     "{", "<", ">", "&", '"', "'", "`", "```\n", "\n\n", "# ", "> ", "- ", "| a |\n|---|\n",
     "x", " ", "AUTHMATH0Z", "AUTHMATH", "\\frac{1}{2}", "<svg onload=x>", "&lt;script&gt;"]
)  # fmt: skip


# Calls (tests/growth.py) one render of the fuzz's text may make: the most seen is about
# 16,000; a 1,000-character statement with a formula, code, a link and emphasis on every
# line makes about 41,000.
FUZZ_BUDGET = 100_000


@settings(max_examples=300, deadline=None)
@given(st.lists(_FRAGMENTS, max_size=60))
def test_fuzz_author_text_always_renders_inert(pieces):
    text = "".join(pieces)
    markup.safe_mathml.cache_clear()  # every formula converted, so counted
    calls(lambda: markup.render_author_markdown.__wrapped__(text), budget=FUZZ_BUDGET)
    assert_inert(render_author_markdown(text))
