"""The one renderer of learner Markdown (capstone/memo_review/memo_markdown.py): CommonMark
with tables through markdown-it-py, raw HTML shown as text, no LaTeX, only web, mail and
in-page links, images as their alt text, headings two levels down, nesting bounded."""

from __future__ import annotations

import pytest

from capstone.memo_review.memo_markdown import LINK_REL, MAX_NESTING, memo_blocks, memo_html


def test_raw_html_is_shown_as_text():
    html = memo_html("<script>alert(1)</script>\n\nA <b onclick=x>bold</b> claim.\n")
    assert "<script" not in html and "<b" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;b onclick=x&gt;bold&lt;/b&gt;" in html


def test_dollar_prices_are_not_latex():
    html = memo_html("At $2.50 per GPU-hour and $3.10 per hour.")
    assert "$2.50 per GPU-hour and $3.10" in html and "<math" not in html


@pytest.mark.parametrize(
    "link",
    [
        "[x](javascript:alert(1))",
        "[x](JAVASCRIPT:alert(1))",
        "[x](&#106;avascript:alert(1))",
        "[x](<javascript:alert(1)>)",
        "[x](data:text/html;base64,PHNjcmlwdD4=)",
        "[x](vbscript:msgbox)",
        "[x](/admin/)",
        "[x](//evil.example/)",
        "<javascript:alert(1)>",
    ],
)
def test_a_link_anywhere_but_the_web_mail_or_this_page_loses_its_target(link):
    html = memo_html(f"See {link} here.")
    assert "href" not in html and "<script" not in html
    assert "<a>x</a>" in html or "<a>javascript:alert(1)</a>" in html  # its text stays


@pytest.mark.parametrize(
    ("link", "href"),
    [
        ("[ok](https://example.com/a?b=1&c=2)", "https://example.com/a?b=1&amp;c=2"),
        ("[ok](http://example.com)", "http://example.com"),
        ("[ok](mailto:ops@example.com)", "mailto:ops@example.com"),
        ("[ok](#fleet)", "#fleet"),
        ("<https://example.com>", "https://example.com"),
    ],
)
def test_web_mail_and_page_links_keep_their_target_and_follow_nothing(link, href):
    html = memo_html(link)
    assert f'<a href="{href}" rel="{LINK_REL}">' in html


def test_images_are_their_alt_text_and_fetch_nothing():
    html = memo_html("![fleet diagram](https://example.com/x.png) and ![](y.png)")
    assert "<img" not in html and "example.com" not in html
    assert '<span class="img-alt">[image: fleet diagram]</span>' in html
    assert '<span class="img-alt">[image]</span>' in html


def test_headings_move_down_two_levels():
    html = memo_html("# One\n\n## Two\n\n### Three\n\n#### Four\n\n##### Five\n\n###### Six\n")
    for written, shown in (("One", 3), ("Two", 4), ("Three", 5), ("Four", 6), ("Six", 6)):
        assert f"<h{shown}>{written}</h{shown}>" in html
    assert "<h1" not in html and "<h2" not in html


def test_fenced_code_and_tables_render_as_written():
    text = "```python\n## not a heading\n<b>x</b>\n```\n\n| GPU | GB |\n|---|--:|\n| H100 | 80 |\n"
    html = memo_html(text)
    assert '<pre><code class="language-python">## not a heading\n&lt;b&gt;x&lt;/b&gt;\n' in html
    assert "<table>" in html and "<th>GPU</th>" in html and "<td>H100</td>" in html
    assert "<h4>" not in html


def test_nesting_is_bounded():
    """30,000 nested list markers: the parser stops MAX_NESTING levels down, so the
    memo's HTML stays small and its tokens few."""
    html = memo_html("- " * 30_000 + "deep")
    assert html.count("<ul>") <= MAX_NESTING
    assert len(memo_blocks("> " * 30_000 + "deep")) <= 4 * MAX_NESTING
