"""bench/markdown_bench.py runs: one table row per entry point and pattern, a time per size,
then the example memo's (the answer reader, which refuses long text at once, keeps this
quick)."""

from __future__ import annotations

from bench import markdown_bench


def test_the_markdown_bench_prints_a_row_per_pattern(capsys):
    assert markdown_bench.main(["--targets", "answer", "--patterns", "brackets", "html-like"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| answer")]
    rows, example = lines[:-1], lines[-1]  # the patterns, then the example memo's line
    assert [row.split(" | ")[1] for row in rows] == ["brackets", "html-like"]
    assert example.count(" | ") == 1 and example.endswith("s |")
    for row in rows:
        times = [cell.strip(" |") for cell in row.split(" | ")[2:]]
        assert len(times) == 3 and all(t.endswith(("µs", "ms", " s")) for t in times), row
