"""An incident drill question as a page shows it: its actions grouped by what they run
on, the steps taken with what each printed, and, once the feedback policy lets the
grades show, a verdict for each of its five criteria.

Nothing here decides what may show. assess.selectors.drills already keeps outputs of
actions not taken, the expert path and the unneeded steps out of the DrillView until
the policy allows; the part verdicts come from the same PartViews every question's
parts use (`show_grades`, `answer`). This module only arranges them: a drill's parts
are its grading criteria, never typed answers, so the page renders no answer box for
them and instead names each choice by its label.
"""

from __future__ import annotations

from dataclasses import dataclass

from assess.selectors.drills import DrillView
from problems.drills.actions import Action

CHOSEN = ("fault", "location", "remedy")  # what the learner picks; the rest are findings
# The two findings the service reads from the action log, in words.
FINDINGS = {
    "time": {
        "in-time": "within twice the expert path's minutes",
        "late": "more than twice the expert path's minutes",
        "not-diagnosed": "no time point without the right fault and location",
    },
    "safety": {
        "safe": "no unneeded disruptive action",
        "unneeded-disruption": "an unneeded disruptive action was taken",
    },
}


@dataclass(frozen=True)
class ActionGroup:
    key: str  # "cluster", "node:HOST", "job:ID", "pod:NAME"
    title: str
    actions: tuple[Action, ...]
    open: bool  # shown unfolded: the cluster's, and the one the latest step ran in


@dataclass(frozen=True)
class StepRow:
    number: int
    at: int  # the simulated minute it started
    label: str
    minutes: int
    disruptive: bool
    output: str
    unneeded: bool  # disruptive and not needed (only once the worked solution shows)


@dataclass(frozen=True)
class Verdict:
    """One criterion once its grade may show."""

    name: str
    label: str
    given: str  # the learner's choice, or the finding, in words
    correct: bool
    points: float
    weight: float
    feedback: str  # the drill's own words on what was wrong ("" when right)
    answer: str  # the right choice in words, when the policy shows it


@dataclass(frozen=True)
class DrillBlock:
    view: DrillView
    groups: tuple[ActionGroup, ...]
    steps: tuple[StepRow, ...]
    chosen: tuple[tuple[str, str], ...]  # (label, choice in words) of the three picks
    verdicts: tuple[Verdict, ...]  # empty until the grades show
    score: float | None  # the question's score (0..1) once the grades show
    mastery_note: str = ""

    @property
    def accepts(self) -> bool:
        return self.view.accepts

    @property
    def submitted(self) -> bool:
        return self.view.submitted


def group_key(target: str) -> str:
    """What an action runs on, as the page groups it: a GPU's actions sit with its
    node's ("gpu:HOST:3" is under "node:HOST")."""
    kind, _, rest = target.partition(":")
    if kind == "gpu":
        return "node:" + rest.split(":")[0]
    return target


def _title(key: str) -> str:
    kind, _, name = key.partition(":")
    names = {"cluster": "Cluster", "node": "Node", "job": "Job", "pod": "Pod"}
    return f"{names.get(kind, kind.capitalize())} {name}".strip()


def action_groups(actions: tuple[Action, ...], latest_target: str | None) -> tuple:
    """The cluster's actions first, then each node's (its GPUs' with it), then the rest
    (jobs, pods), each in the drill's own order."""
    grouped: dict[str, list[Action]] = {}
    for a in actions:
        grouped.setdefault(group_key(a.target), []).append(a)

    def rank(key: str) -> int:
        return 0 if key == "cluster" else 1 if key.startswith("node:") else 2

    latest = None if latest_target is None else group_key(latest_target)
    keys = sorted(grouped, key=rank)  # stable: the drill's order within each rank
    return tuple(
        ActionGroup(k, _title(k), tuple(grouped[k]), k == "cluster" or k == latest) for k in keys
    )


def _words(name: str, raw: str, choices) -> str:
    if name in FINDINGS:
        return FINDINGS[name].get(raw, raw)
    return choices.get(name, {}).get(raw, raw)


def drill_block(view: DrillView, parts: list, answers: list[dict], score: float | None):
    """`parts`: the question's PartViews (the policy's verdict on each criterion);
    `answers`: the question's stored parts (their weights and solved values); `score`:
    the question's score, None while the grades are hidden."""
    unneeded = set(view.unneeded or ())
    steps = tuple(
        StepRow(s.number, t.at, s.label, s.minutes, s.disruptive, s.output, s.number in unneeded)
        for s, t in zip(view.steps, view.timeline, strict=True)
    )
    latest = view.steps[-1].target if view.steps else None
    by_name = {p["name"]: p for p in answers}
    chosen = tuple(
        (p.label, _words(p.name, p.latest.raw, view.choices))
        for p in parts
        if p.name in CHOSEN and p.latest is not None
    )
    verdicts = tuple(
        Verdict(
            name=p.name,
            label=p.label,
            given=_words(p.name, p.latest.raw, view.choices),
            correct=bool(p.latest.correct),
            points=float(p.latest.score) * float(by_name[p.name].get("weight", 1.0)),
            weight=float(by_name[p.name].get("weight", 1.0)),
            feedback="" if p.latest.correct else (p.latest.feedback or ""),
            answer=_words(p.name, str(by_name[p.name]["value"]), view.choices) if p.answer else "",
        )
        for p in parts
        if p.show_grades and p.latest is not None
    )
    note = next((p.mastery_note for p in parts if p.mastery_note), "")
    return DrillBlock(
        view=view,
        groups=action_groups(view.actions, latest) if view.accepts else (),
        steps=steps,
        chosen=chosen,
        verdicts=verdicts if len(verdicts) == len(parts) else (),
        score=score if verdicts and len(verdicts) == len(parts) else None,
        mastery_note=note,
    )
