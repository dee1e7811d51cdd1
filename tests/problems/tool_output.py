"""Shared helpers for the tool-output layout tests: the real captures (copied verbatim
from /work/shared/spec/tool-output into tests/problems/data/tool-output, README there)
and the fenced text blocks of generated statements."""

from __future__ import annotations

import re
from pathlib import Path

from problems.engine.variants import Variant

CAPTURES = Path(__file__).parent / "data" / "tool-output"
FENCE = re.compile(r"```text\n(.*?)\n```", re.S)


def capture(kind: str, n: int) -> str:
    return (CAPTURES / kind / f"sample-{n}.txt").read_text()


def blocks(slug: str, seed: int) -> tuple[Variant, list[str]]:
    v = Variant.from_seed(slug, seed)
    return v, FENCE.findall(v.statement_markdown())


def shape(line: str) -> str:
    """A line with its numbers made 9 and its runs of spaces made one: what is left is the
    order of the fields and their units."""
    line = re.sub(r"\b[0-9A-F]{8}:[0-9A-F]{2}:[0-9A-F]{2}\.[0-9]\b", "BUS", line)
    line = re.sub(r"\d+(\.\d+)?", "9", line)
    return re.sub(r" +", " ", line)


def bars(line: str) -> tuple[int, ...]:
    """Where the column separators of a table line sit."""
    return tuple(i for i, c in enumerate(line) if c in "|+")
