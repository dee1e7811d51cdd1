"""A drill as the `problems drill --json` line: everything the learner could see (alert,
each action with the output it prints on the initial state) plus the answer and the
expert path, for checking drills from outside the engine."""

from __future__ import annotations

from typing import Any

from problems.drills.drill import Drill


def export(drill: Drill) -> dict[str, Any]:
    actions = []
    for a in drill.actions:
        output, _ = a.run(drill.state)
        actions.append(
            {
                "id": a.id,
                "label": a.label,
                "target": a.target,
                "minutes": a.minutes,
                "disruptive": a.disruptive,
                "output": output,
            }
        )
    ans = drill.answer
    return {
        "slug": drill.slug,
        "seed": drill.seed,
        "alert": drill.alert,
        "actions": actions,
        "answer": {"fault": ans.fault, "location": ans.location, "remedy": ans.remedy},
        "expert_path": list(drill.expert_path),
    }
