"""What every concept template shares: a bank of questions per part and the template
that draws one question per part.

A concept is tested by asking about it in a situation, not by asking for its
definition, so each part of a concept template has a bank of short situations
(`Question`), all answered from the same set of options (`Topic.choices`). A variant is
one question per part; its parameters are the questions' indices in their banks.

Every option other than the right one is a `Slip`: the misconception that leads a
learner to choose it, its name (declared to problems.engine.misconception_names, so the
name sits beside the slip it describes) and what to tell them. So a wrong answer is
always named, and a named slip can never equal the answer (checked when the bank is built).

The worked solution starts with one clue per part (`Topic.clue`, the mechanism in a
sentence that names no option) and ends with the answers and why: hints are cut from a
solution's leading steps, so a learner who asks for a hint is pointed at the mechanism
and still has to choose.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import Field, create_model

from problems.engine.misconception_names import declare
from problems.engine.template import Misconception, Params, Part, Template
from problems.templates._common import choice_part


@dataclass(frozen=True)
class Slip:
    """A wrong option, the misconception behind choosing it, and what to tell the learner."""

    choice: str
    code: str
    name: str  # the misconception in words, common to every time it is made
    feedback: str  # what to tell the learner who chose it here

    def __post_init__(self) -> None:
        declare(self.code, self.name)


@dataclass(frozen=True)
class Question:
    """One situation in a part's bank: the prompt, the right option, why, and the slips."""

    prompt: str  # Markdown; states the situation and asks; names no answer
    answer: str
    why: str  # why the answer is right, in a sentence or two
    slips: tuple[Slip, ...]


@dataclass(frozen=True)
class Topic:
    """One part of a concept template: its options and its bank of questions."""

    part: str
    label: str
    clue: str  # the mechanism in a sentence, naming no option (the first hint)
    choices: tuple[str, ...]
    questions: tuple[Question, ...]
    meanings: tuple[tuple[str, str], ...] = ()  # (choice, what it stands for), when unclear

    def __post_init__(self) -> None:
        """Hold the bank to its promises: every question answered from the options, and
        every other option a named slip, once."""
        if len(set(self.choices)) != len(self.choices) or len(self.choices) < 2:
            raise ValueError(f"{self.part}: options must be two or more and distinct")
        if self.meanings and [c for c, _ in self.meanings] != list(self.choices):
            raise ValueError(f"{self.part}: meanings must follow the options, in order")
        for i, q in enumerate(self.questions):
            if q.answer not in self.choices:
                raise ValueError(f"{self.part}[{i}]: answer {q.answer!r} is not an option")
            wrong = [s.choice for s in q.slips]
            if sorted(wrong) != sorted(c for c in self.choices if c != q.answer):
                raise ValueError(f"{self.part}[{i}]: every other option needs one slip")


def other_options(
    answer: str,
    names: Mapping[str, tuple[str, str]],
    feedback: Mapping[str, str],
    suffix: str = "",
) -> tuple[Slip, ...]:
    """A slip for every option but the answer, in the order of `names`: its (code, name)
    from `names`, its feedback `feedback[option] + suffix`. For banks whose slips are the
    same per option whatever the question (what the wrongly chosen option does instead)."""
    return tuple(
        Slip(option, code, name, feedback[option] + suffix)
        for option, (code, name) in names.items()
        if option != answer
    )


def _params_model(name: str, topics: tuple[Topic, ...]) -> type[Params]:
    fields: dict[str, Any] = {t.part: (int, Field(ge=0, lt=len(t.questions))) for t in topics}
    return create_model(name, __base__=Params, **fields)  # type: ignore[call-overload]


class ConceptTemplate(Template):
    """A template whose parts are concept questions drawn from banks.

    Subclasses set the usual class attributes, `INTRO` (the paragraph that frames the
    questions) and `TOPICS`; the parameters model is built from the topics (one index per
    part), so a subclass writes no code."""

    INTRO: ClassVar[str]
    TOPICS: ClassVar[tuple[Topic, ...]]
    difficulty = 2

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "TOPICS" in cls.__dict__:
            names = [t.part for t in cls.TOPICS]
            if len(set(names)) != len(names):
                raise ValueError(f"{cls.__name__}: part names must be distinct")
            cls.Params = _params_model(f"{cls.__name__}Params", cls.TOPICS)

    def generate(self, rng: random.Random) -> Params:
        return self.Params(**{t.part: rng.randrange(len(t.questions)) for t in self.TOPICS})

    def _drawn(self, p: Any) -> list[tuple[Topic, Question]]:
        return [(t, t.questions[getattr(p, t.part)]) for t in self.TOPICS]

    def solve(self, p: Any) -> dict[str, Part]:
        return {
            t.part: choice_part(t.part, q.answer, t.choices, t.label) for t, q in self._drawn(p)
        }

    def statement(self, p: Any) -> str:
        lines = [self.INTRO.strip(), ""]
        for number, (t, q) in enumerate(self._drawn(p), start=1):
            lines.append(f"{number}. {q.prompt.strip()}")
            lines.append("")
            if t.meanings:
                options = "; ".join(f"`{c}` ({meaning})" for c, meaning in t.meanings)
            else:
                options = ", ".join(f"`{c}`" for c in t.choices)
            lines.append(f"   Answer one of: {options}.")
            lines.append("")
        return "\n".join(lines).rstrip()

    def solution(self, p: Any) -> str:
        drawn = self._drawn(p)
        steps = [t.clue.strip() for t, _ in drawn]
        answers = " ".join(
            f"{number}. **{q.answer}**: {q.why.strip()}"
            for number, (_, q) in enumerate(drawn, start=1)
        )
        return "\n\n".join([*steps, answers])

    def misconceptions(self, p: Any) -> list[Misconception]:
        return [
            Misconception(s.code, t.part, s.choice, s.feedback)
            for t, q in self._drawn(p)
            for s in q.slips
        ]
