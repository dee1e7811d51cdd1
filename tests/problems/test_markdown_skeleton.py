"""The skeleton path (problems.engine.markdown_skeleton) gives Python-Markdown's own HTML,
character for character: for hand-picked shapes where digits are Markdown's syntax or
could be mistaken for a stand-in, and for every text the service renders with it (every
template's statement, worked solution and hints over a spread of seeds, every lesson's
key ideas)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from problems.engine import registry, render
from problems.engine.hints import hints_for
from problems.engine.markdown_skeleton import fill, skeleton_of
from problems.engine.render import _convert, _shape_html, markdown_html
from problems.engine.variants import Variant

CURRICULA = Path(__file__).resolve().parents[2] / "curricula" / "data"

TRICKY = [
    "Eight GPUs of 80 GB each hold 640 GB.",
    "1. First step, 8 GPUs\n2. Second step, 16 GPUs\n10) Tenth, 3.5 TB",
    "3.5. Not a list, 2.25 apart",
    "  12. An indented marker\n\n   7. and another",
    "An H100 has 80 GB; an h2 tag <h2>4</h2> too.",
    "Entities: &#8212; &#x2014; &amp; 5",
    "Versions 1.5.3 and 2.0.1, 0.5, .5 and 5.",
    "A number glued to a unit: 70B, 8x, 1.5e9, 3e-4 and 2^10",
    "| GPUs | GB |\n|---:|---:|\n| 8 | 640 |\n| 16 | 1,280 |",
    "```\n$ nvidia-smi\n|   0  H100 80GB HBM3   On  | 00000000:18:00.0 Off |\n```\nThen 4 of 8.",
    "    an indented code block 42\n\nand 7 after it",
    "*8* and **16** and _32_ and `64` and [128](https://example.com/256)",
    "A stand-in's look-alike: 90007 and 90017 and 99997",
    "MATHTOKEN0X is 3 and MATHTOKEN12X is 4",
    "# 1 heading\n\n## Section 2\n\ntext 3",
    "100% of 7, -3 and +4, 1,024 and 65{,}536",
    "no number at all",
    "> quoted 5\n> and 6\n\n- a list item 7\n- another 8",
]


@pytest.mark.parametrize("text", TRICKY)
def test_tricky_shapes_match_the_converter(text):
    assert markdown_html(text) == _convert(text)


def test_a_number_markdown_reads_as_syntax_sends_the_text_whole():
    shape = skeleton_of("1.5. Not a list")  # "90007. Not a list" would be one
    assert shape is not None
    assert fill(_shape_html(shape.text), shape.numbers) is None
    assert markdown_html("1.5. Not a list") == _convert("1.5. Not a list")


def test_a_look_alike_of_a_stand_in_sends_the_text_whole():
    assert skeleton_of("GPU90017 and 3 more") is None


def test_a_text_without_numbers_is_its_own_shape_converted_once():
    text = "Go through bytes: MATHTOKEN0X MiB of MATHTOKEN1X bytes each.\n\nMATHTOKEN2X"
    shape = skeleton_of(text)
    assert shape is not None and (shape.text, shape.numbers) == (text, ())
    _shape_html.cache_clear()
    assert markdown_html(text) == markdown_html(text) == _convert(text)
    info = _shape_html.cache_info()
    assert (info.misses, info.hits) == (1, 1)


def test_the_numbers_of_a_shape_share_one_conversion():
    _shape_html.cache_clear()
    markdown_html("Eight GPUs of 80 GB each hold 640 GB.")
    markdown_html("Eight GPUs of 94 GB each hold 752 GB.")
    info = _shape_html.cache_info()
    assert (info.misses, info.hits) == (1, 1)


def _texts(variant: Variant) -> list[str]:
    texts = [variant.statement_markdown(), variant.solution_markdown()]
    return texts + [hint.markdown for hint in hints_for(variant)]


def _rendered_both_ways(texts: list[str], monkeypatch) -> None:
    """Each text through render_markdown (math cut out, fences kept) with the whole
    text converted, then through the skeleton twice: converted afresh, then cached."""
    with monkeypatch.context() as patched:
        patched.setattr(render, "markdown_html", render._convert)
        expected = [render.render_markdown.__wrapped__(t) for t in texts]
    _shape_html.cache_clear()
    for _ in range(2):
        got = [render.render_markdown.__wrapped__(t) for t in texts]
        for text, mine, theirs in zip(texts, got, expected, strict=True):
            assert mine == theirs, text


@pytest.mark.parametrize("template", registry.all_templates(), ids=lambda t: t.slug)
def test_every_text_of_every_template_matches_the_converter(template, monkeypatch):
    seeds = (1, 7, 19, 2026, 90001)
    texts = [t for seed in seeds for t in _texts(Variant.from_seed(template.slug, seed))]
    _rendered_both_ways(texts, monkeypatch)


def _key_ideas(node) -> list[str]:
    if isinstance(node, dict):
        found = [node["key_ideas"]] if isinstance(node.get("key_ideas"), str) else []
        return found + [t for value in node.values() for t in _key_ideas(value)]
    if isinstance(node, list):
        return [t for value in node for t in _key_ideas(value)]
    return []


def test_every_lesson_s_key_ideas_match_the_converter(monkeypatch):
    files = sorted(CURRICULA.glob("*.yaml"))
    texts = [t for f in files for t in _key_ideas(yaml.safe_load(f.read_text()))]
    assert len(texts) > 50
    _rendered_both_ways(texts, monkeypatch)
