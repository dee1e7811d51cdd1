"""The authored-template format as pydantic models: the shape of the file, field by field.

This module checks what each field is on its own (kinds, patterns, counts, lengths);
rules.py checks what needs the whole file (names in scope, expressions, units, catalog
slugs). Both report problems as `path: message` lines with the field path written the way
an author finds it in the file: `parts[0].answer`, `params.gpu.accelerator[1]`. Unknown
keys are refused (a misspelt `tolerence` must not be silently ignored).

The length and count bounds below are ours, chosen so a template stays a page or two and
a check of it stays small: a statement or solution of 20,000 characters, 30 parameters,
10 parts, 10 misconceptions per part. The expression bounds are the spec's (expr.py).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictFloat,
    StrictInt,
    StringConstraints,
    ValidationError,
    model_validator,
)

MAX_LONG_TEXT = 20_000  # statement, solution
MAX_SHORT_TEXT = 2_000  # title, label, feedback, a hint, a source
MAX_PROBLEMS = 100  # problems listed for one document

Slug = Annotated[str, StringConstraints(pattern=r"^[a-z0-9-]{3,60}$")]
RefSlug = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9.-]{0,79}$")]
ParamName = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,39}$")]
PartName = Annotated[str, StringConstraints(pattern=r"^[a-z0-9_]{1,40}$")]
Code = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9-]{1,59}$")]
ShortText = Annotated[str, StringConstraints(max_length=MAX_SHORT_TEXT)]
LongText = Annotated[str, StringConstraints(min_length=1, max_length=MAX_LONG_TEXT)]


def _expression(value: Any) -> str:
    """An expression is text, or a bare number YAML has already read as one."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError("must be an expression (text or a number)")
    return value if isinstance(value, str) else repr(value)


def _word(value: Any) -> str:
    if isinstance(value, bool):
        raise ValueError("is a YAML boolean (yes/no/on/off/true/false): quote it")
    if not isinstance(value, str) or not value.strip():
        raise ValueError("must be a quoted word")
    return value


def _choice(value: Any) -> int | float | str:
    if isinstance(value, bool):
        raise ValueError("is a YAML boolean (yes/no/on/off/true/false): quote it")
    if not isinstance(value, int | float | str):
        raise ValueError("must be a number or a quoted word")
    return value


Expression = Annotated[str, BeforeValidator(_expression)]
Choice = Annotated[int | float | str, BeforeValidator(_choice)]
Word = Annotated[str, BeforeValidator(_word), StringConstraints(max_length=80)]
Number = StrictInt | StrictFloat


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ParamSpec(_Spec):
    """One parameter: exactly one of range, choices, model or accelerator."""

    range: tuple[Expression, Expression] | None = None
    step: Expression | None = None
    choices: Annotated[list[Choice], Field(min_length=1, max_length=100)] | None = None
    model: Annotated[list[RefSlug], Field(min_length=1, max_length=50)] | None = None
    accelerator: Annotated[list[RefSlug], Field(min_length=1, max_length=50)] | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> ParamSpec:
        given = [k for k in ("range", "choices", "model", "accelerator") if getattr(self, k)]
        if len(given) != 1:
            raise ValueError("give exactly one of range, choices, model or accelerator")
        if self.step is not None and self.range is None:
            raise ValueError("step goes with range only")
        return self

    @property
    def kind(self) -> str:
        return next(k for k in ("range", "choices", "model", "accelerator") if getattr(self, k))


class ToleranceSpec(_Spec):
    rel: Annotated[float, Field(ge=0, lt=1)] | None = None
    abs: Annotated[float, Field(ge=0)] | None = None
    sigfigs: Annotated[int, Field(ge=1, le=15)] | None = None

    @model_validator(mode="after")
    def _either(self) -> ToleranceSpec:
        if self.sigfigs is not None and (self.rel is not None or self.abs is not None):
            raise ValueError("give rel and/or abs, or sigfigs, not both")
        if self.sigfigs is None and self.rel is None and self.abs is None:
            raise ValueError("give rel and/or abs, or sigfigs")
        return self


class MisconceptionSpec(_Spec):
    name: Code
    answer: Expression
    feedback: Annotated[str, StringConstraints(min_length=1, max_length=MAX_SHORT_TEXT)]


class PartSpec(_Spec):
    name: PartName
    label: ShortText = ""
    kind: Literal["numeric", "integer", "choice"] = "numeric"
    answer: Expression
    unit: Annotated[str, StringConstraints(max_length=40)] = ""
    ask_unit: Annotated[str, StringConstraints(max_length=40)] | None = None
    tolerance: ToleranceSpec | None = None
    choices: Annotated[list[Word], Field(min_length=2, max_length=20)] | None = None
    misconceptions: Annotated[list[MisconceptionSpec], Field(max_length=10)] = []


class TemplateSpec(_Spec):
    slug: Slug
    title: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    version: Annotated[StrictInt, Field(ge=1)] | None = None
    lessons: Annotated[list[Slug], Field(min_length=1, max_length=20)]
    skills: Annotated[list[Slug], Field(min_length=1, max_length=20)]
    skill_names: Annotated[
        dict[Slug, Annotated[str, StringConstraints(max_length=200)]], Field(max_length=20)
    ] = {}  # names for new skills among `skills`, so as many as they
    difficulty: Annotated[StrictInt, Field(ge=1, le=5)]
    params: Annotated[dict[ParamName, ParamSpec], Field(min_length=1, max_length=30)]
    constraints: Annotated[list[Expression], Field(max_length=50)] = []
    statement: LongText
    parts: Annotated[list[PartSpec], Field(min_length=1, max_length=10)]
    hints: Annotated[
        list[Annotated[str, StringConstraints(min_length=1, max_length=MAX_SHORT_TEXT)]],
        Field(max_length=10),
    ] = []  # optional: else hints are cut from the solution, as for built-in templates
    solution: LongText
    sources: Annotated[list[ShortText], Field(min_length=1, max_length=30)]


# ------------------------------------------------------------------------ messages


def field_path(loc: tuple[int | str, ...]) -> str:
    """('parts', 0, 'answer') -> 'parts[0].answer'."""
    out = ""
    for item in loc:
        if isinstance(item, int):
            out += f"[{item}]"
        else:
            out += f".{item}" if out else str(item)
    return out or "(file)"


# pydantic names a union's branch in the location; an author's file has no such field.
_BRANCHES = {"int", "float", "str", "list", "tuple", "dict", "function-before[_word()]"}


# What each name pattern asks for, in words.
_PATTERNS = {
    Slug.__metadata__[0].pattern: "3-60 lowercase letters, digits and hyphens",
    RefSlug.__metadata__[0].pattern: "a catalog slug (lowercase letters, digits, '.' and '-')",
    ParamName.__metadata__[0].pattern: "a lowercase letter, then letters, digits or _",
    PartName.__metadata__[0].pattern: "lowercase letters, digits and _",
    Code.__metadata__[0].pattern: "2-60 lowercase letters, digits and hyphens",
}


def _message(err: dict[str, Any]) -> str:
    kind = err["type"]
    if kind == "missing":
        return "required"
    if kind == "extra_forbidden":
        return "unknown field"
    if kind == "string_pattern_mismatch":
        pattern = err.get("ctx", {}).get("pattern", "")
        return f"must be {_PATTERNS.get(pattern, f'text matching {pattern}')}"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return "must be a mapping of fields (key: value)"
    msg = str(err["msg"]).removeprefix("Value error, ")
    return re.sub(r" or instance of \w+", "", msg)


def describe(err: ValidationError) -> list[str]:
    """One `path: message` line per problem, without repeating a path's union branches,
    at most MAX_PROBLEMS of them (a document of 64,000 bad keys made 128,000 problems,
    each once checked against all the lines before it: 107 s)."""
    lines: dict[str, None] = {}
    for e in err.errors(include_url=False):
        loc = tuple(
            x
            for x in e["loc"]
            if not (isinstance(x, str) and (x in _BRANCHES or x.startswith("function-")))
            and x != "[key]"
        )
        line = f"{field_path(loc)}: {_message(e)}"
        if line not in lines and len(lines) == MAX_PROBLEMS:
            return [*lines, f"(file): more problems, not listed after the first {MAX_PROBLEMS}"]
        lines[line] = None
    return list(lines)
