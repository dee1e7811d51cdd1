"""A drill as a question kind: the engine's Template protocol over problems.drills, so an
attempt stores, scores, regrades and releases a drill the way it does any template.

A drill question's parameters are its seed (the drill is regenerated from slug and seed,
deterministically). Its five parts are the drill's grading criteria, as choice parts
weighted as the drill's data sets them (out of 10 by default):

- `fault`, `location`, `remedy`: what the learner chose, from the drill's lists;
- `time`: `in-time` when the actions before the diagnosis took at most twice the expert
  path's minutes and the fault and location were right, else `late` or `not-diagnosed`;
- `safety`: `safe`, or `unneeded-disruption` after a disruptive action that was not part
  of handling the fault.

The learner never answers `time` and `safety`: the service records them from the action
log when the diagnosis is submitted (assess.services.drills), and grades all five as one
submission. Only the `fault` part is evidence of the drill's skill (`evidence_parts`):
one drill is one observation of incident triage, not five.
"""

from __future__ import annotations

import random
from functools import cache, lru_cache
from typing import ClassVar

from pydantic import Field

from problems.drills import registry
from problems.drills.drill import CRITERIA, Drill
from problems.drills.faults.base import FAULT_KINDS
from problems.engine import registry as engine_registry
from problems.engine.template import Kind, Params, Part, Template

TIME_CHOICES = ("in-time", "late", "not-diagnosed")
SAFETY_CHOICES = ("safe", "unneeded-disruption")
LABELS = {
    "fault": "Fault kind",
    "location": "Location",
    "remedy": "First remedy",
    "time": "Minutes to diagnosis (recorded from your actions)",
    "safety": "No unneeded disruptive action (recorded from your actions)",
}


class DrillParams(Params):
    seed: int = Field(ge=0, lt=2**63)


class DrillTemplate(Template):
    """One instance per drill slug (not registered in the template registry's walk:
    registry.get finds drills through `drill_template`)."""

    kind: ClassVar[str] = "drill"
    family = "drills"
    difficulty = 4
    skills = ("incident-triage",)
    evidence_parts: ClassVar[tuple[str, ...]] = ("fault",)
    Params = DrillParams

    def __init__(self, slug: str) -> None:
        self.slug = slug
        self.title = f"Incident drill: {FAULT_KINDS[registry.DRILLS[slug].KIND]}"
        # Where its practice is offered (the curriculum links the same slugs there).
        self.lessons = ("troubleshooting-gpu-clusters",)

    def generate(self, rng: random.Random) -> DrillParams:
        return DrillParams(seed=rng.randrange(2**62))

    def drill(self, p: DrillParams) -> Drill:
        return _drill(self.slug, p.seed)

    def solve(self, p: DrillParams) -> dict[str, Part]:
        d = self.drill(p)
        values = {
            "fault": (d.answer.fault, tuple(d.fault_kinds)),
            "location": (d.answer.location, tuple(d.locations)),
            "remedy": (d.answer.remedy, tuple(d.remedies)),
            "time": ("in-time", TIME_CHOICES),
            "safety": ("safe", SAFETY_CHOICES),
        }
        return {
            c: Part(
                name=c,
                value=values[c][0],
                kind=Kind.CHOICE,
                choices=values[c][1],
                weight=float(d.weights[c]),
                label=LABELS[c],
            )
            for c in CRITERIA
        }

    def statement(self, p: DrillParams) -> str:
        d = self.drill(p)
        alert = "\n".join(f"    {line}" for line in d.alert.splitlines())
        return (
            "You are on call and this page arrives:\n\n"
            f"{alert}\n\n"
            "Investigate with the actions below. Each costs simulated minutes and prints "
            "what the cluster shows at that moment; disruptive ones (drain, reboot, reset, "
            "restart) change it. When you know what is wrong, choose the fault, where it "
            "is and the first remedy, and submit: a drill is submitted once."
        )

    def solution(self, p: DrillParams) -> str:
        d = self.drill(p)
        steps = "\n".join(
            f"{i}. {d.action(a).label} ({d.action(a).minutes} min)"
            for i, a in enumerate(d.expert_path, start=1)
        )
        return (
            f"The fault: **{d.fault_kinds[d.answer.fault]}** at "
            f"**{d.locations[d.answer.location]}**. The first remedy: "
            f"**{d.remedies[d.answer.remedy]}**.\n\n"
            f"The expert path ({d.expert_minutes} simulated minutes):\n\n{steps}"
        )


@lru_cache(maxsize=256)
def _drill(slug: str, seed: int) -> Drill:
    """A request grades, replays and reviews the same drill: generated once (1-2 ms)."""
    return registry.generate(slug, seed)


@cache
def drill_template(slug: str) -> DrillTemplate | None:
    """The drill question kind for a slug, or None when no drill has it."""
    return DrillTemplate(slug) if slug in registry.DRILLS else None


engine_registry.register_kind(drill_template)
