"""Drill grading: the points per criterion, the unneeded disruptive actions named, and the
timeline beside the expert path."""

import dataclasses
from types import MappingProxyType

import pytest

from problems.drills import registry
from problems.drills.drill import grade


@pytest.fixture
def drill():
    return registry.generate("drill-uncorrectable-ecc", 11)


def _right(drill):
    return (drill.answer.fault, drill.answer.location), drill.answer.remedy


def _other_node(drill):
    host = drill.answer.location.split(":")[0]
    return next(n.hostname for n in drill.state.nodes if n.hostname != host)


def test_the_expert_path_with_the_right_answers_scores_ten(drill):
    diagnosis, remedy = _right(drill)
    g = grade(drill, drill.expert_path, diagnosis, remedy)
    assert g.score == 10
    assert g.points == {"fault": 3, "location": 2, "remedy": 3, "time": 1, "safety": 1}
    assert g.feedback == () and g.unneeded == ()
    assert [s.action for s in g.timeline] == list(drill.expert_path)
    assert [s.at for s in g.timeline] == [0, 1, 2]
    assert g.expert_timeline == g.timeline


def test_a_wrong_disruptive_action_is_named_and_costs_the_safety_point(drill):
    diagnosis, remedy = _right(drill)
    wrong = f"requeue@{drill.state.main_job.job_id}"  # 1 minute: within the time budget
    g = grade(drill, [*drill.expert_path, wrong], diagnosis, remedy)
    assert g.unneeded == (wrong,)
    assert g.points["safety"] == 0 and g.score == 9
    (line,) = [f for f in g.feedback if f.startswith("Unneeded disruptive action")]
    assert wrong in line and drill.action(wrong).label in line
    assert g.timeline[-1].disruptive and g.timeline[-1].at == drill.expert_minutes


def test_each_unneeded_disruptive_action_is_named_once_per_kind(drill):
    diagnosis, remedy = _right(drill)
    other = _other_node(drill)
    taken = [f"reboot@{other}", *drill.expert_path, f"reboot@{other}", f"resume@{other}"]
    g = grade(drill, taken, diagnosis, remedy)
    assert g.unneeded == (f"reboot@{other}", f"reboot@{other}", f"resume@{other}")
    named = [f for f in g.feedback if f.startswith("Unneeded")]
    assert len(named) == 2 and f"reboot@{other}" in named[0] and f"resume@{other}" in named[1]
    assert g.points["time"] == 0  # 24 minutes of actions against an expert's 3


def test_disruptive_actions_that_belong_to_the_fix_are_not_penalised(drill):
    diagnosis, remedy = _right(drill)
    host, i = drill.answer.location.split(":gpu")
    taken = [*drill.expert_path, f"drain@{host}", f"reset-gpu@{host}:{i}"]
    g = grade(drill, taken, diagnosis, remedy)
    assert g.unneeded == () and g.score == 10


def test_wrong_location_loses_location_and_time_points(drill):
    _, remedy = _right(drill)
    elsewhere = next(k for k in drill.locations if ":gpu" in k and k != drill.answer.location)
    g = grade(drill, drill.expert_path, (drill.answer.fault, elsewhere), remedy)
    assert g.points["location"] == 0 and g.points["time"] == 0
    assert g.score == 10 - 2 - 1
    assert any(drill.locations[drill.answer.location] in f for f in g.feedback)


def test_wrong_fault_and_remedy(drill):
    g = grade(drill, drill.expert_path, ("thermal-throttle", drill.answer.location), "no-action")
    assert g.points == {"fault": 0, "location": 2, "remedy": 0, "time": 0, "safety": 1}
    assert g.score == 3


def test_more_than_twice_the_expert_minutes_loses_the_time_point(drill):
    diagnosis, remedy = _right(drill)
    slow = [*drill.expert_path, f"dcgmi-diag@{_other_node(drill)}"]
    assert drill.minutes(slow) > 2 * drill.expert_minutes
    g = grade(drill, slow, diagnosis, remedy)
    assert g.points["time"] == 0 and g.score == 9
    assert any(f.startswith("Time:") for f in g.feedback)


def test_unknown_action_is_an_error(drill):
    diagnosis, remedy = _right(drill)
    with pytest.raises(ValueError, match="no action"):
        grade(drill, ["rm -rf /"], diagnosis, remedy)


def test_weights_can_be_set_per_drill(drill):
    weights = MappingProxyType({"fault": 2, "location": 2, "remedy": 4, "time": 1, "safety": 1})
    custom = dataclasses.replace(drill, weights=weights)
    diagnosis, _ = _right(drill)
    g = grade(custom, drill.expert_path, diagnosis, "no-action")
    assert g.score == 6 and g.points["remedy"] == 0


def test_restarting_a_healthy_replica_is_named_in_a_kubernetes_drill():
    drill = registry.generate("drill-device-plugin", 2)
    healthy = next(a.id for a in drill.actions if a.id.startswith("delete-pod@"))
    taken = [drill.expert_path[0], healthy, *drill.expert_path[1:]]
    g = grade(drill, taken, (drill.answer.fault, drill.answer.location), "reboot-node")
    assert g.unneeded == (healthy,) and g.score == 9
    assert [s.action for s in g.timeline] == taken
    assert [s.at for s in g.timeline] == [0, 1, 2, 3]
    assert any(healthy in f for f in g.feedback)
    outputs = [out for _, out in drill.replay(taken)]
    assert "deleted" in outputs[1]
