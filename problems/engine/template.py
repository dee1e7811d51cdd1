"""The template protocol: what every problem template provides.

A template is a small pure unit in the PrairieLearn spirit: typed parameters, a
generate() that draws them from a passed-in rng, an exact solve(), rendered text,
and the values that common mistakes produce. No Django, no database, no I/O.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict

from problems.engine.feasibility.declare import Feasibility, feasible_generate
from problems.engine.tolerance import RelAbs, Tolerance


class Kind(StrEnum):
    NUMERIC = "numeric"
    INTEGER = "integer"
    CHOICE = "choice"


class Params(BaseModel):
    """Base for every template's parameters: unknown names are refused, values frozen.

    Every parameter is required, except those named in `stored_defaults`: parameters a
    template added after questions were stored with their parameters. Such a parameter's
    default is the behaviour those questions were shown with, so a stored set without it
    still solves as it did; the generator sets it explicitly."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    stored_defaults: ClassVar[frozenset[str]] = frozenset()


@dataclass(frozen=True)
class Part:
    """One answer a question asks for, with everything needed to grade it.

    `value` is exact: a float for numeric parts, an int for integer parts, a word for
    choice parts. `unit` is the unit the value is expressed in ("" for a pure number).
    `also_correct` lists other choice words graded correct, for the rare question where
    an expert would defend a second answer as equally right; `value` stays the key shown.
    """

    name: str
    value: float | int | str
    unit: str = ""
    kind: Kind = Kind.NUMERIC
    tolerance: Tolerance = field(default_factory=RelAbs)
    choices: tuple[str, ...] = ()
    weight: float = 1.0
    label: str = ""
    also_correct: tuple[str, ...] = ()


@dataclass(frozen=True)
class Misconception:
    """The answer a named mistake produces for one part, and what to tell the learner."""

    code: str
    part: str
    value: float | int | str
    feedback: str


@dataclass(frozen=True)
class FactorHints:
    """Degrees a template declares so the generic detector can name per-GPU slips.

    `parallelism`: a degree (GPUs, nodes, replicas) where an answer off by exactly that
    factor means per-GPU was confused with total. `ranks`: the collective size, for the
    2(n-1)/n all-reduce volume factor.
    """

    parallelism: int | None = None
    ranks: int | None = None


class Template:
    """Base class for templates. Subclasses set the class attributes and methods."""

    slug: ClassVar[str]
    version: ClassVar[int] = 1
    title: ClassVar[str]
    family: ClassVar[str]
    lessons: ClassVar[tuple[str, ...]] = ()
    skills: ClassVar[tuple[str, ...]] = ()
    difficulty: ClassVar[int] = 1  # 1 (recall) .. 5 (synthesis)
    Params: ClassVar[type[Params]]
    # The checks every variant must pass and what system it describes (feasibility/).
    feasibility: ClassVar[Feasibility | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Hold every generate() to the template's declared feasibility checks, so no
        caller (variants, tests, the CLI) can draw a variant that fails them."""
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("generate")
        if own is not None and not getattr(own, "__feasible_wrapped__", False):
            cls.generate = feasible_generate(own)

    def generate(self, rng: random.Random) -> Params:
        raise NotImplementedError

    def solve(self, p: Any) -> dict[str, Part]:
        raise NotImplementedError

    def statement(self, p: Any) -> str:
        """Markdown with inline LaTeX between $...$."""
        raise NotImplementedError

    def solution(self, p: Any) -> str:
        """Worked solution: Markdown with LaTeX, built from the template's formula."""
        raise NotImplementedError

    def misconceptions(self, p: Any) -> list[Misconception]:
        return []

    def factor_hints(self, p: Any) -> FactorHints:
        return FactorHints()

    def parse_params(self, data: dict[str, Any]) -> Params:
        """Validate raw parameters (CLI, stored JSON); raises pydantic.ValidationError."""
        return self.Params.model_validate(data)
