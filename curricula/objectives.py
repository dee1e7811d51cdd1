"""A lesson objective: what the learner can do, and what in the service tests that they can.

The four outlines in shared/seeds promise things a learner will be able to do. Each
promise is carried by an objective of some lesson, and each objective names what asks
about it, so that "is this promise tested?" is answered by the data instead of by hope:

    objectives:
      - text: Compute the ring all-reduce time from message size and link bandwidth.
        terms: [all-reduce, ring]
        tested_by:
          - allreduce-ring-time
          - ref: nccl-busbw
            reason: the bus bandwidth it asks for is the ring's per-link rate

A reference (`ref`) is one of three things:

    a template slug        problems.engine.registry serves it
    a drill slug           problems.drills.registry serves it (drill-...)
    capstone:CODE          a criterion of the capacity memo's rubric (capstone.memo_review)

`tested_by` may be empty: the objective is then untested, and
`manage.py curricula coverage --by-objective` lists it and fails. Nothing is gained by
linking an objective to a template that does not ask about it, so the link test
(tests/curricula/test_objective_links.py) samples each linked template and requires its
statement or part labels to mention one of the objective's `terms`; a link whose template
asks about the objective without using those words carries a one-line `reason` instead.
`terms` is therefore required as soon as one link goes without a reason, and optional
otherwise. The reason sits on the link, not the objective, because it explains that one
link.

Plain-string objectives are no longer accepted: every objective was migrated to this shape
so that none can hide from the coverage report by being written the old way.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictStr, field_validator, model_validator

CAPSTONE_PREFIX = "capstone:"

_REF = r"^(?:capstone:)?[a-z0-9]+(?:-[a-z0-9]+)*$"
Ref = Annotated[StrictStr, Field(pattern=_REF, max_length=80)]
Term = Annotated[StrictStr, Field(min_length=2, max_length=60)]
ObjectiveText = Annotated[StrictStr, Field(min_length=1)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TestLink(_Strict):
    """One thing that tests an objective, with the reason when its wording does not show it."""

    __test__ = False  # not a pytest class, whatever its name says

    ref: Ref
    reason: StrictStr | None = None

    @field_validator("reason")
    @classmethod
    def _one_line(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip()
        if not value or "\n" in value:
            raise ValueError("a reason is one non-blank line")
        if len(value) > 200:
            raise ValueError("a reason is one line of at most 200 characters")
        return value


class ObjectiveRecord(_Strict):
    text: ObjectiveText
    terms: list[Term] = Field(default_factory=list)
    tested_by: list[TestLink] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _no_plain_strings(cls, data: Any) -> Any:
        if isinstance(data, str):
            raise ValueError(
                "an objective is a mapping {text: ..., terms: [...], tested_by: [...]}, "
                "not a plain string"
            )
        return data

    @field_validator("tested_by", mode="before")
    @classmethod
    def _refs_as_links(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [{"ref": item} if isinstance(item, str) else item for item in value]
        return value

    @field_validator("text")
    @classmethod
    def _text_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("is blank")
        return value.strip()

    @field_validator("terms")
    @classmethod
    def _terms_distinct(cls, value: list[str]) -> list[str]:
        lowered = [term.strip().lower() for term in value]
        if any(not term for term in lowered):
            raise ValueError("a term is blank")
        if len(set(lowered)) != len(lowered):
            raise ValueError("a term is listed twice")
        return [term.strip() for term in value]

    @model_validator(mode="after")
    def _links_distinct_and_terms_present(self) -> ObjectiveRecord:
        refs = [link.ref for link in self.tested_by]
        for ref in refs:
            if refs.count(ref) > 1:
                raise ValueError(f"tested_by names {ref!r} twice")
        if not self.terms and any(link.reason is None for link in self.tested_by):
            raise ValueError(
                "terms: name the key terms a linked template's statement must mention, "
                "or give every link a reason"
            )
        return self

    @property
    def refs(self) -> tuple[str, ...]:
        return tuple(link.ref for link in self.tested_by)


def capstone_shaped(ref: str) -> bool:
    """A `capstone:CODE` reference with a well-formed code. Which codes exist is the
    capstone's to say, a layer above this one: the loader checks the shape, and a test
    holds every code in the data to the rubric (tests/curricula/capstone_rubric.py)."""
    return ref.startswith(CAPSTONE_PREFIX) and bool(
        _CODE.fullmatch(ref.removeprefix(CAPSTONE_PREFIX))
    )


_CODE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def known_refs(templates: Collection[str], capstone: Collection[str]) -> frozenset[str]:
    """Every reference an objective may name: templates and drills, and capstone:CODE."""
    return frozenset(templates) | frozenset(f"{CAPSTONE_PREFIX}{code}" for code in capstone)


def unknown_refs(objective: ObjectiveRecord, known: Collection[str]) -> list[str]:
    return [ref for ref in objective.refs if ref not in known]


# --- what a reference asks, for the link test ------------------------------------------

_SPACE = re.compile(r"\s+")


def normalise(text: str) -> str:
    """Lower case with runs of whitespace made one space: how terms are matched."""
    return _SPACE.sub(" ", text).strip().lower()


def mentions(text: str, terms: Collection[str]) -> list[str]:
    """The terms that occur in text, case-insensitively and ignoring line breaks."""
    haystack = normalise(text)
    return [term for term in terms if normalise(term) in haystack]


def asked_text(ref: str, seed: int, capstone_titles: Mapping[str, str] | None = None) -> str:
    """What the learner reads when `ref` tests them, for one seed.

    A template: its statement and its parts' labels. A drill: its alert, the fault it
    plants and the remedy it expects (the actions on offer are the same tools for every
    drill, so they say nothing about what this one tests). A capstone criterion: its
    title, the same for every seed.
    """
    if ref.startswith(CAPSTONE_PREFIX):
        if capstone_titles is None:
            raise ValueError(f"{ref}: the rubric's titles are needed to read a capstone link")
        return capstone_titles[ref.removeprefix(CAPSTONE_PREFIX)]
    if ref.startswith("drill-"):
        from problems.drills import registry as drills

        drill = drills.generate(ref, seed)
        return "\n".join(
            (
                drill.alert,
                drill.fault_kinds[drill.answer.fault],
                drill.remedies.get(drill.answer.remedy, ""),
            )
        )
    from problems.engine.variants import Variant

    variant = Variant.from_seed(ref, seed)
    labels = [part.label for part in variant.parts.values()]
    return "\n".join((variant.statement_markdown(), *labels))


# Seeds the link test reads each template at: enough to meet the variants a template
# draws (models, precisions, which mechanism is asked about), few enough to stay fast.
LINK_SEEDS: tuple[int, ...] = tuple(range(1, 9))


def unsupported_links(
    lesson: str,
    objective: ObjectiveRecord,
    seeds: Collection[int] = LINK_SEEDS,
    capstone_titles: Mapping[str, str] | None = None,
) -> list[str]:
    """Links of one objective whose referent does not ask about it, one message each.

    A link without a reason needs, at every sampled seed, one of the objective's terms in
    what the learner reads; the first seed that lacks them is named, so the message points
    at a variant to look at.
    """
    problems = []
    for link in objective.tested_by:
        if link.reason is not None:
            continue
        for seed in seeds:
            if not mentions(asked_text(link.ref, seed, capstone_titles), objective.terms):
                problems.append(
                    f"{lesson}: {link.ref} (seed {seed}) mentions none of {objective.terms} "
                    f"for {objective.text!r}"
                )
                break
    return problems
