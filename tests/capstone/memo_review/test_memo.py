"""The memo parser: sections by tolerant heading, key figures read by the engine's reader
(never evaluated), bad text reported rather than raised, and input bounded."""

from __future__ import annotations

import pytest

from capstone.memo_review import SECTIONS, brief_for, example_memo, parse_memo
from capstone.memo_review import memo as memo_module
from capstone.memo_review.memo import MAX_FIGURE_CHARS, MAX_MEMO_CHARS, figure_key, section_name
from tests.growth import FIGURE_PATTERNS, adversarial


def _memo(figures: str, extra: str = "") -> str:
    body = "\n\n".join(f"## {s}\n\nSome text." for s in SECTIONS[:-1])
    return f"# Memo\n\n{body}\n\n{extra}## Key figures\n\n{figures}\n"


def test_example_memo_has_every_section_and_figure():
    parsed = parse_memo(example_memo(brief_for(5)))
    assert parsed.missing_sections() == ()
    assert set(parsed.figures) == {
        "accelerator", "tensor_parallel", "context", "weights", "kv_per_token",
        "seqs_per_replica", "peak_concurrency", "replicas", "gpus", "monthly_cost",
    }  # fmt: skip
    assert all(f.error == "" for f in parsed.figures.values())
    assert parsed.notes == () and not parsed.truncated


@pytest.mark.parametrize(
    ("heading", "name"),
    [
        ("Weights & state budget", "Weights and state budget"),
        ("WEIGHTS AND STATE BUDGET", "Weights and state budget"),
        ("3. Fleet sizing", "Fleet"),
        ("Failure case tests", "Failure-case test"),
        ("What would change the plan?", "What would change the plan"),
        ("Capacity per replica (H100)", "Capacity per replica"),
        ("Key Figures", "Key figures"),
        ("Assumption", "Assumptions"),
        ("Measurement Plan:", "Measurement plan"),
        ("Introduction", None),
        ("Budget", None),
    ],
)
def test_headings_match_tolerantly(heading, name):
    assert section_name(heading) == name


def test_missing_sections_are_listed_in_order():
    text = (
        _memo("- Replicas: 3")
        .replace("## Demand\n\nSome text.", "")
        .replace("## Fleet\n\nSome text.", "")
    )
    assert parse_memo(text).missing_sections() == ("Demand", "Fleet")


def test_a_heading_inside_a_fenced_code_block_is_not_a_section():
    text = "## Assumptions\n\n```text\n## Demand\n```\n"
    parsed = parse_memo(text)
    assert "Assumptions" in parsed.sections and "Demand" not in parsed.sections


@pytest.mark.parametrize(
    ("line", "key", "value", "unit"),
    [
        ("- Weights: **141.1 GB**", "weights", 141.1, "GB"),
        ("- Weights: 131.4 GiB", "weights", 131.4, "GiB"),
        ("- Weights: 141.1", "weights", 141.1, "GB"),
        ("- KV per token: 320 KiB (BF16)", "kv_per_token", 320.0, "KiB"),
        ("- Monthly cost: $48,907 per month", "monthly_cost", 48907.0, "USD"),
        ("- Monthly cost (USD): 48,907", "monthly_cost", 48907.0, "USD"),
        ("- Replicas: 12 replicas", "replicas", 12.0, "replica"),
        ("- TP: 4 GPUs", "tensor_parallel", 4.0, "GPU"),
        ("- Context per sequence: 8,192 tokens", "context", 8192.0, "tok"),
        ("- Peak concurrent sequences: 722.8", "peak_concurrency", 722.8, ""),
        ("- Concurrent sequences per replica: 62 concurrent sequences", "seqs_per_replica", 62, ""),
        ("* GPUs: `48`", "gpus", 48.0, ""),
    ],
)
def test_figures_are_read_with_their_units(line, key, value, unit):
    figure = parse_memo(_memo(line)).figures[key]
    assert (figure.value, figure.unit, figure.error) == (value, unit, "")


def test_figure_lines_without_list_markers_are_read():
    figures = parse_memo(_memo("Replicas: 3\nGPUs: 12\nWeights: 16.06 GB")).figures
    assert (figures["replicas"].value, figures["gpus"].value) == (3, 12)
    assert figures["weights"].unit == "GB"


def test_bad_figure_text_is_reported_not_raised():
    parsed = parse_memo(_memo("- Weights: about a hundred GB\n- Replicas: 2.5\n- GPUs: 4 GB"))
    assert parsed.figures["weights"].value is None
    assert "not a number" in parsed.figures["weights"].error
    assert "whole number" in parsed.figures["replicas"].error
    assert "count" in parsed.figures["gpus"].error


def test_unknown_and_repeated_figures_are_noted():
    parsed = parse_memo(_memo("- Replicas: 3\n- Replicas: 4\n- Vibes: good"))
    assert parsed.figures["replicas"].value == 3
    assert any("given twice" in n for n in parsed.notes)
    assert any("Vibes" in n for n in parsed.notes)


def test_code_in_a_figure_is_never_evaluated(tmp_path):
    target = tmp_path / "pwned"
    payloads = [
        f"__import__('os').system('touch {target}')",
        "__import__('os')",
        "eval('2+2')",
        "2**64",
        "1e999",
        "nan",
    ]
    for payload in payloads:
        parsed = parse_memo(_memo(f"- Replicas: {payload}\n- Weights: {payload}"))
        assert parsed.figures["replicas"].value is None, payload
        assert parsed.figures["weights"].value is None, payload
        assert parsed.figures["weights"].error, payload
    assert not target.exists()
    assert figure_key("__import__('os')") is None


def test_very_long_input_is_bounded(monkeypatch):
    """Cut before the parser reads it (test_markdown_growth.py holds the parser linear)."""
    read: list[int] = []
    blocks = memo_module.memo_blocks
    monkeypatch.setattr(memo_module, "memo_blocks", lambda t: read.append(len(t)) or blocks(t))
    text = _memo("- Replicas: 3") + ("word " * 200 + "\n\n") * 2_000  # about 2 MB
    parsed = parse_memo(text)
    assert read == [MAX_MEMO_CHARS]
    assert parsed.truncated and any("cut" in n for n in parsed.notes)
    assert parsed.figures["replicas"].value == 3
    long_value = parse_memo(_memo("- Weights: " + "1" * 500))
    assert "too long" in long_value.figures["weights"].error


def test_odd_input_never_raises():
    for text in ("", "   ", "##", "## Key figures\n\n- :\n- Weights:", None, "\x00\x02"):
        parsed = parse_memo(text)
        assert isinstance(parsed.missing_sections(), tuple)


def test_max_memo_chars_is_generous_for_an_honest_memo():
    assert len(example_memo(brief_for(0))) * 10 < MAX_MEMO_CHARS


class _Recording:
    """A compiled pattern that records the length of every text it is given."""

    def __init__(self, pattern, lengths: list[int]):
        self.pattern, self.lengths = pattern, lengths

    def __getattr__(self, name):
        method = getattr(self.pattern, name)

        def call(*args, **kwargs):  # sub(repl, text), search(text): the longest string
            self.lengths.append(max(len(a) for a in args if isinstance(a, str)))
            return method(*args, **kwargs)

        return call


@pytest.mark.parametrize("pattern", FIGURE_PATTERNS)
def test_backtracking_expressions_read_only_bounded_text(pattern, monkeypatch):
    """A run of `*` between letters, or of `(` or `[`, made the figure's expressions
    quadratic (26 s on one 60,000-character line): one C call each, which no call count
    sees. So they are given at most MAX_FIGURE_CHARS (a label MAX_LABEL_CHARS)."""
    lengths: list[int] = []
    for name in ("_EMPHASIS", "_NOTE", "_PER_MONTH", "_LABEL_NOTE"):
        monkeypatch.setattr(memo_module, name, _Recording(getattr(memo_module, name), lengths))
    parsed = parse_memo(adversarial(pattern, MAX_MEMO_CHARS))
    assert max(lengths, default=0) <= MAX_FIGURE_CHARS
    replicas = parsed.figures.get("replicas")
    assert replicas is None or "too long" in replicas.error
    parse_memo(example_memo(brief_for(5)))  # the recording sees what an honest memo gives
    assert lengths and max(lengths) <= MAX_FIGURE_CHARS


def test_an_overlong_figure_or_label_is_refused_with_a_reason():
    parsed = parse_memo(_memo("- Replicas: **" + "3" * 300 + "**\n- GPUs (" + "x" * 200 + "): 4"))
    assert "too long" in parsed.figures["replicas"].error
    assert "gpus" not in parsed.figures and any("Unknown key figure" in n for n in parsed.notes)
