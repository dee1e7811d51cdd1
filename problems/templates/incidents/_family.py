"""What the incidents templates share: the Markdown list that explains each choice word;
the choice-part builder and the fenced block for tool output come from `_common` (the
renderer leaves a fenced block alone, so a shell prompt's `$` stays text)."""

from __future__ import annotations

from collections.abc import Mapping

from problems.templates._common import choice_part, fenced

__all__ = ["choice_part", "fenced", "menu"]


def menu(words: Mapping[str, str]) -> str:
    """One Markdown bullet per choice word: "- `word`: what it means"."""
    return "\n".join(f"- `{word}`: {meaning}" for word, meaning in words.items())
