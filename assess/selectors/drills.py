"""An incident drill question as its reader may see it.

The feedback policy (assess.policy) decides about the parts, as for any question; this
adds what only a drill has. Its own learner always sees the actions on offer (ids,
labels, targets, minutes, whether disruptive: never an output) and every step they took
with what it printed: that is the evidence they gathered, not a verdict. The expert
path, and which of their disruptive actions were not needed, show only with the worked
solution (`policy.show_solution`): before that, either would point at the fault.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from assess.models import DrillStep, Question
from assess.skills import is_drill
from problems.drills.actions import Action
from problems.drills.drill import Drill, Step, timeline
from problems.engine import registry


@dataclass(frozen=True)
class DrillView:
    actions: tuple[Action, ...]  # on offer; outputs only through `steps`
    steps: tuple[DrillStep, ...]  # taken, in order, with what each printed
    timeline: tuple[Step, ...]  # the steps at their simulated minutes
    minutes: int  # simulated minutes the steps took
    submitted: bool
    accepts: bool  # its learner may take actions and submit now
    choices: MappingProxyType  # {"fault" | "location" | "remedy": {id: label}}
    expert_timeline: tuple[Step, ...] | None  # with the worked solution only
    unneeded: tuple[int, ...] | None  # numbers of unneeded disruptive steps, likewise


def drill_of(question: Question) -> Drill | None:
    """The question's drill, regenerated from its slug and seed; None for a template."""
    if not is_drill(question.template_slug):
        return None
    kind = registry.get(question.template_slug)
    return kind.drill(kind.parse_params(question.params))


def steps_of(question: Question) -> list[DrillStep]:
    return list(DrillStep.objects.filter(question=question).order_by("number"))


def steps_by_question(questions: Iterable[Question]) -> dict[int, list[DrillStep]]:
    """{question id: its steps in order} for the drills among `questions`: one query,
    none when there is no drill."""
    ids = [q.pk for q in questions if drill_of(q) is not None]
    out: dict[int, list[DrillStep]] = {pk: [] for pk in ids}
    if ids:
        for step in DrillStep.objects.filter(question_id__in=ids).order_by("question", "number"):
            out[step.question_id].append(step)
    return out


def drill_view(
    *,
    drill: Drill,
    steps: Sequence[DrillStep],
    submitted: bool,
    accepts: bool,
    show_solution: bool,
) -> DrillView:
    at, stamped = 0, []
    for s in steps:
        stamped.append(Step(at, s.action, s.label, s.minutes, s.disruptive))
        at += s.minutes
    unneeded = tuple(s.number for s in steps if s.disruptive and s.action not in drill.handling)
    return DrillView(
        actions=drill.actions,
        steps=tuple(steps),
        timeline=tuple(stamped),
        minutes=at,
        submitted=submitted,
        accepts=accepts and not submitted,
        choices=MappingProxyType(
            {"fault": drill.fault_kinds, "location": drill.locations, "remedy": drill.remedies}
        ),
        expert_timeline=timeline(drill, drill.expert_path) if show_solution else None,
        unneeded=unneeded if show_solution else None,
    )
