"""A drill (an alert, the actions on offer, the hidden answer and the expert path) and
its grading.

Grading, out of 10 by default (a fault module may set WEIGHTS to change the split):

- diagnosis, 5: the fault kind (3) and its location (2), each chosen from lists;
- remedy, 3: the first action chosen to fix it;
- time, 1: the minutes the learner's actions cost before the diagnosis are at most twice
  the expert path's, given only with a right fault kind and location (a fast wrong guess
  earns nothing);
- safety, 1: no disruptive action beyond those that belong to handling this fault; each
  unneeded one is named in the feedback.

After grading the learner sees the timeline (each action at its simulated minute) beside
the expert path's. Nothing here says what the fault is until grade() is called.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

from problems.drills.actions import Action, by_id
from problems.drills.cluster import Cluster

DEFAULT_WEIGHTS = MappingProxyType(
    {"fault": 3.0, "location": 2.0, "remedy": 3.0, "time": 1.0, "safety": 1.0}
)


@dataclass(frozen=True)
class Answer:
    fault: str
    location: str
    remedy: str


@dataclass(frozen=True)
class Drill:
    slug: str
    seed: int
    alert: str
    state: Cluster  # the initial state (the fault planted)
    actions: tuple[Action, ...]
    answer: Answer
    expert_path: tuple[str, ...]
    handling: frozenset[str]  # disruptive actions that are part of the fix
    fault_kinds: MappingProxyType  # {id: label}, what the learner chooses from
    locations: MappingProxyType
    remedies: MappingProxyType
    weights: MappingProxyType = field(default_factory=lambda: DEFAULT_WEIGHTS)

    def action(self, action_id: str) -> Action:
        try:
            return by_id(self.actions)[action_id]
        except KeyError:
            raise ValueError(f"no action {action_id!r} in drill {self.slug}") from None

    def replay(self, taken: list[str] | tuple[str, ...]) -> list[tuple[Action, str]]:
        """Run the actions in order from the initial state: what each one printed."""
        state, out = self.state, []
        for action_id in taken:
            action = self.action(action_id)
            output, state = action.run(state)
            out.append((action, output))
        return out

    def minutes(self, taken: list[str] | tuple[str, ...]) -> int:
        return sum(self.action(a).minutes for a in taken)

    @property
    def expert_minutes(self) -> int:
        return self.minutes(self.expert_path)


@dataclass(frozen=True)
class Step:
    at: int  # simulated minute the action started
    action: str
    label: str
    minutes: int
    disruptive: bool


CRITERIA = ("fault", "location", "remedy", "time", "safety")


@dataclass(frozen=True)
class DrillGrade:
    score: float
    points: dict[str, float]
    feedback: tuple[str, ...]
    notes: dict[str, tuple[str, ...]]  # the feedback lines by criterion (CRITERIA)
    timeline: tuple[Step, ...]
    expert_timeline: tuple[Step, ...]
    unneeded: tuple[str, ...]  # ids of unneeded disruptive actions, in the order taken


def timeline(drill: Drill, taken: list[str] | tuple[str, ...]) -> tuple[Step, ...]:
    steps, t = [], 0
    for action_id in taken:
        a = drill.action(action_id)
        steps.append(Step(t, a.id, a.label, a.minutes, a.disruptive))
        t += a.minutes
    return tuple(steps)


def grade(
    drill: Drill, taken: list[str] | tuple[str, ...], diagnosis: tuple[str, str], remedy: str
) -> DrillGrade:
    """Score the learner's actions, diagnosis (fault kind, location) and remedy."""
    fault, location = diagnosis
    w, ans = drill.weights, drill.answer
    for a in taken:
        drill.action(a)  # unknown ids are an error, not a silent zero
    points = {
        "fault": w["fault"] if fault == ans.fault else 0.0,
        "location": w["location"] if location == ans.location else 0.0,
        "remedy": w["remedy"] if remedy == ans.remedy else 0.0,
    }
    notes: dict[str, list[str]] = {c: [] for c in CRITERIA}
    if fault != ans.fault:
        notes["fault"].append(
            f"Fault: {drill.fault_kinds.get(fault, fault)} is not it; the evidence shows "
            f"{drill.fault_kinds[ans.fault]}."
        )
    if location != ans.location:
        notes["location"].append(f"Location: it is {drill.locations[ans.location]}.")
    if remedy != ans.remedy:
        notes["remedy"].append(
            f"Remedy: the first action is to {drill.remedies[ans.remedy].lower()}."
        )
    spent, budget = drill.minutes(taken), 2 * drill.expert_minutes
    diagnosed = bool(points["fault"] and points["location"])
    points["time"] = w["time"] if diagnosed and spent <= budget else 0.0
    if diagnosed and spent > budget:
        notes["time"].append(
            f"Time: your actions took {spent} simulated minutes; within {budget} (twice the "
            f"expert path's {drill.expert_minutes}) earns the time point."
        )
    elif not diagnosed:
        notes["time"].append("Time: the time point goes with a right fault and location.")
    unneeded = tuple(a for a in taken if drill.action(a).disruptive and a not in drill.handling)
    points["safety"] = 0.0 if unneeded else w["safety"]
    for a in dict.fromkeys(unneeded):
        notes["safety"].append(
            f"Unneeded disruptive action: {drill.action(a).label} ({a}) did not help with "
            "this fault and cost work on the cluster."
        )
    return DrillGrade(
        score=round(sum(points.values()), 2),
        points=points,
        feedback=tuple(line for c in CRITERIA for line in notes[c]),
        notes={c: tuple(lines) for c, lines in notes.items()},
        timeline=timeline(drill, taken),
        expert_timeline=timeline(drill, drill.expert_path),
        unneeded=unneeded,
    )
