"""Acts change the cluster as they would a real one, and later looks show it."""

import random
import re
from dataclasses import replace

import pytest

from problems.drills import registry
from problems.drills.actions import _set_busy


def _find(slug, want):
    for seed in range(200):
        drill = registry.generate(slug, seed)
        if want(drill):
            return drill
    raise AssertionError(f"no seed of {slug} fits")


def _gpu(drill):
    host, index = drill.answer.location.split(":gpu")
    return host, int(index)


def _last(drill, taken):
    return drill.replay(taken)[-1][1]


def test_gpu_reset_refused_while_in_use_then_activates_the_remap_after_a_drain():
    drill = registry.generate("drill-uncorrectable-ecc", 3)
    host, i = _gpu(drill)
    before = _last(drill, [f"smi-q@{host}:{i}"])
    assert re.search(r"Pending\s+: Yes", before)
    assert re.search(r"DRAM Uncorrectable\s+: 1", before)
    refused = _last(drill, [f"reset-gpu@{host}:{i}"])
    assert "is currently in use by another process" in refused
    taken = [f"drain@{host}", f"reset-gpu@{host}:{i}", f"smi-q@{host}:{i}"]
    steps = drill.replay(taken)
    assert "was successfully reset" in steps[1][1]
    after = steps[2][1]
    assert re.search(r"Pending\s+: No", after)
    assert re.search(r"Remapped Rows\n.*\n\s+Uncorrectable Error\s+: 1", after)
    volatile = after.split("Volatile")[1].split("Aggregate")[0]
    assert re.search(r"DRAM Uncorrectable\s+: 0", volatile)


def test_drain_takes_the_node_out_of_the_job():
    drill = registry.generate("drill-thermal-throttle", 5)
    host, _ = _gpu(drill)
    job = drill.state.main_job
    assert "State=ALLOCATED" in _last(drill, [f"scontrol@{host}"])
    steps = drill.replay([f"drain@{host}", "sinfo-R", f"scontrol@{host}"])
    assert f"scontrol requeue {job.job_id}" in steps[0][1]
    assert f"{host} drained" in steps[0][1]
    assert host in steps[1][1] and "oncall" in steps[1][1]
    assert "State=IDLE+DRAIN" in steps[2][1] and "CPUAlloc=0" in steps[2][1]
    _, after = drill.action(f"drain@{host}").run(drill.state)
    moved = after.job(job.job_id)
    assert host not in moved.nodes and moved.restarts == 1
    assert moved.state == "PD" or len(moved.nodes) == len(job.nodes)


def test_reboot_brings_back_a_transient_off_bus_gpu_but_not_a_dead_one():
    def hidden(kind):
        return lambda d: any(g.fault == kind for n in d.state.nodes for g in n.gpus)

    for kind, back in (("off-bus-transient", True), ("off-bus-hardware", False)):
        drill = _find("drill-gpu-off-bus", hidden(kind))
        host, i = _gpu(drill)
        bus = drill.state.node(host).gpus[i].bus_id
        assert "Unable to determine the device handle" in _last(drill, [f"nvidia-smi@{host}"])
        steps = drill.replay([f"reboot@{host}", f"nvidia-smi@{host}", f"dmesg@{host}", "sinfo-R"])
        smi = steps[1][1]
        assert "Unable to determine" not in smi
        assert (bus in smi) is back, kind
        assert len(re.findall(r"NVIDIA \S+.*On  \|", smi)) == (8 if back else 7)
        assert "Xid" not in steps[2][1]  # the reboot emptied the kernel ring buffer
        assert ("gres/gpu count repo" in steps[3][1]) is not back


def test_a_gpu_reset_cannot_reach_a_gpu_off_the_bus_and_changes_nothing():
    drill = registry.generate("drill-gpu-off-bus", 2)
    host, i = _gpu(drill)
    steps = drill.replay([f"reset-gpu@{host}:{i}", f"nvidia-smi@{host}"])
    assert "Unable to determine the device handle" in steps[0][1]
    assert "Unable to determine the device handle" in steps[1][1]


def test_no_reset_or_reboot_cools_a_throttled_gpu():
    drill = registry.generate("drill-thermal-throttle", 9)
    host, i = _gpu(drill)
    steps = drill.replay([f"drain@{host}", f"reboot@{host}", f"smi-q@{host}:{i}"])
    assert re.search(r"SW Thermal Slowdown\s+: Active", steps[-1][1])


def test_resume_clears_the_drain_but_only_a_reboot_frees_the_stuck_gpu():
    drill = registry.generate("drill-slurm-drain", 4)
    host = drill.answer.location
    assert "python3" in _last(drill, [f"nvidia-smi@{host}"])  # a process Slurm does not run
    resumed = drill.replay([f"resume@{host}", "sinfo-R", f"nvidia-smi@{host}"])
    assert host not in resumed[1][1]
    assert "python3" in resumed[2][1]
    rebooted = drill.replay([f"reboot@{host}", f"nvidia-smi@{host}"])
    assert "No running processes found" in rebooted[1][1]


def test_minutes_pass_with_each_action():
    drill = registry.generate("drill-ib-link-degraded", 1)
    state = drill.state
    for action_id in ("nccl-pairs", "squeue"):
        _, later = drill.action(action_id).run(state)
        assert (later.now - state.now).total_seconds() == 60 * drill.action(action_id).minutes
        state = later


def _pods(output):
    """(name, status, node) rows of `kubectl get pods -o wide`."""
    rows = [line.split() for line in output.splitlines()[2:]]
    return [(r[0], r[2], r[6]) for r in rows]


def test_device_plugin_restart_changes_nothing_and_a_reboot_brings_the_gpus_back():
    drill = registry.generate("drill-device-plugin", 6)
    host = drill.answer.location
    pending = [p for p in _pods(_last(drill, ["kubectl-get-pods"])) if p[1] == "Pending"]
    assert len(pending) == 1 and pending[0][2] == "<none>"
    steps = drill.replay([f"restart-plugin@{host}", "gpu-allocatable", f"plugin-log@{host}"])
    assert re.search(rf"^{host} +0$", steps[1][1], re.M)
    assert "ERROR_LIB_RM_VERSION_MISMATCH" in steps[2][1]
    steps = drill.replay(
        [
            f"reboot@{host}",
            "gpu-allocatable",
            "kubectl-get-pods",
            f"nvidia-smi@{host}",
            "sched-events",
        ]
    )
    assert re.search(rf"^{host} +8$", steps[1][1], re.M)
    assert (pending[0][0], "Running", host) in _pods(steps[2][1])
    smi = steps[3][1]
    assert "version mismatch" not in smi and smi.count("python3") == 8  # the replica runs
    assert "No resources found" in steps[4][1]


def test_a_restarted_pod_lands_where_the_scheduler_puts_it():
    drill = registry.generate("drill-device-plugin", 6)
    before = _pods(_last(drill, ["kubectl-get-pods"]))
    name, _, node = next(p for p in before if p[1] == "Running")
    after = _pods(drill.replay([f"delete-pod@{name}", "kubectl-get-pods"])[1][1])
    assert name not in [p[0] for p in after]
    new = [p for p in after if p not in before and p[1] == "Running"]
    assert len(new) == 1 and new[0][2] == node  # the only node with 8 free GPUs: its own
    assert sum(p[1] == "Pending" for p in after) == 1


def test_a_full_shared_volume_is_full_on_every_node_and_no_reboot_frees_it():
    drill = registry.generate("drill-volume-full", 8)
    lines = {
        line
        for n in drill.state.nodes
        for line in _last(drill, [f"df@{n.hostname}"]).splitlines()
        if line.endswith(" /checkpoints")
    }
    assert len(lines) == 1 and " 100% " in lines.pop()
    host = drill.state.main_job.nodes[0]
    after = drill.replay([f"reboot@{host}", f"df@{host}"])[1][1]
    assert re.search(r" 0 100% /checkpoints$", after, re.M)


def test_a_gpu_reset_retrains_the_failed_nvlink_and_the_node_is_fast_again():
    drill = registry.generate("drill-nvlink-error", 1)
    host, i = _gpu(drill)
    assert "<inactive>" in _last(drill, [f"nvlink@{host}"])
    slow = re.findall(r"Avg bus bandwidth +: ([\d.]+)", _last(drill, ["nccl-pairs"]))
    steps = drill.replay(
        [f"drain@{host}", f"reset-gpu@{host}:{i}", f"nvlink@{host}", f"dmesg@{host}"]
    )
    assert "was successfully reset" in steps[1][1]
    assert "<inactive>" not in steps[2][1]
    assert "Xid" in steps[3][1]  # the log keeps the history until a reboot
    assert len(slow) == 4 and min(map(float, slow)) < 0.8 * max(map(float, slow))


def test_a_rack_power_cap_holds_every_gpu_of_the_rack_and_survives_a_reboot():
    drill = registry.generate("drill-rack-power-cap", 3)
    rack = drill.answer.location.split(":")[1]
    for n in drill.state.nodes:
        q = _last(drill, [f"nvidia-smi@{n.hostname}"])
        caps = set(re.findall(r"W / +(\d+)W", q))
        assert (len(caps) == 1 and caps != {str(n.gpus[0].cap)}) is (n.rack == rack)
    host = next(h for h in drill.state.main_job.nodes if drill.state.node(h).rack == rack)
    after = drill.replay([f"reboot@{host}", f"smi-q@{host}:0"])[1][1]
    limit = int(re.search(r"Current Power Limit\s+: (\d+)", after).group(1))
    default = int(re.search(r"Default Power Limit\s+: (\d+)", after).group(1))
    assert limit < default


@pytest.mark.parametrize("slug", registry.slugs())
def test_any_sequence_of_actions_runs_and_every_step_prints(slug):
    """Acts in any order (drain then reboot then reset, a pod deleted then looked at...)
    leave a state every action can still run on."""
    for seed in range(6):
        drill = registry.generate(slug, seed)
        rng = random.Random(seed)
        acts = [a.id for a in drill.actions if a.disruptive]
        looks = [a.id for a in drill.actions if not a.disruptive]
        for _ in range(4):
            taken = [rng.choice(acts if rng.random() < 0.6 else looks) for _ in range(12)]
            for action, output in drill.replay(taken):
                assert output.strip(), (slug, seed, action.id)


def test_topo_and_binding_are_one_minute_looks_on_the_job_nodes_that_change_nothing():
    drill = registry.generate("drill-ib-link-degraded", 2)
    for kind in ("topo", "binding"):
        acts = [a for a in drill.actions if a.id.startswith(f"{kind}@")]
        assert [a.id.split("@")[1] for a in acts] == list(drill.state.main_job.nodes)
        for a in acts:
            assert not a.disruptive and a.minutes == 1
            assert a.run(drill.state)[1] == drill.state.later(1)


def _loaded_exactly_as(node, busy: bool):
    """What the node's usable GPUs read once loaded (busy) or idle, copied field by field."""

    def one(g):
        if not g.on_bus or g.fault == "stuck":
            return g
        if busy:
            return replace(g, util=max(g.util, 90), used_mib=max(g.used_mib, g.total_mib * 4 // 5))
        temp = g.temp if g.fault == "thermal" else 33
        return replace(g, util=0, used_mib=0, watts=min(g.watts, 90), temp=temp)

    return replace(node, gpus=tuple(one(g) for g in node.gpus))


@pytest.mark.parametrize("busy", [True, False])
def test_loading_or_idling_a_node_gives_the_copied_node_and_keeps_what_it_need_not_copy(busy):
    """_set_busy keeps a GPU already in the state asked (and a node none of whose GPUs
    changed) rather than copying it: the same values as copying every record, on every
    node of every drill, and applied twice the second pass copies nothing."""
    for slug in registry.slugs():
        for node in registry.generate(slug, 1).state.nodes:
            once = _set_busy(node, busy)
            assert once == _loaded_exactly_as(node, busy)
            assert _set_busy(once, busy) is once
