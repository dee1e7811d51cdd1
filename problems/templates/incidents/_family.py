"""What the incidents templates share: the choice-part builder, the Markdown list that
explains each choice word, and the fenced block that holds tool output (the renderer
leaves a fenced block alone, so a shell prompt's `$` stays text)."""

from __future__ import annotations

from collections.abc import Mapping

from problems.engine.template import Kind, Part
from problems.engine.tolerance import Exact


def choice_part(name: str, value: str, choices: tuple[str, ...], label: str) -> Part:
    """A one-word answer graded exactly against `choices`."""
    if value not in choices:
        raise ValueError(f"{name}: {value!r} is not one of {choices}")
    return Part(name, value, kind=Kind.CHOICE, tolerance=Exact(), choices=choices, label=label)


def menu(words: Mapping[str, str]) -> str:
    """One Markdown bullet per choice word: "- `word`: what it means"."""
    return "\n".join(f"- `{word}`: {meaning}" for word, meaning in words.items())


def fenced(text: str) -> str:
    """Tool output as a fenced text block."""
    return f"```text\n{text.rstrip()}\n```"
